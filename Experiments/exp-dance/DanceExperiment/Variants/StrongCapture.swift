import LabHarness

/// Counts ticks through a handler it keeps. The handler names `self`, so the ticker holds the
/// handler and the handler holds the ticker: a cycle that no line of the caller shows.
final class Ticker {
    private(set) var ticks = 0
    var onTick: (() -> Void)?
    let onDeinit: () -> Void
    init(onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
    deinit { onDeinit() }  // the trial's release instant, as the article's dealloc logs "deinit"

    func makeTickHandler() -> () -> Void {
        { self.ticks += 1 }  // a strong capture of self: the point of this variant
    }

    func start() { onTick = makeTickHandler() }
    func tick() { onTick?() }
}

/// `strong-capture`: the owner stores a closure that captures it strongly. The claim holds when the
/// ticker leaks and the reference counts show why: onTick held it strongly; clearing onTick let it go.
enum StrongCapture {
    static func run(_ context: VariantContext) -> VariantRecord {
        let trial = OwnerTrial(context, owner: "ticker")
        do {
            let ticker = Ticker(onDeinit: trial.ownerDeinit)
            trial.watch(ticker)
            trial.probe.created(on: ticker, ticker.makeTickHandler())
            ticker.start()
            trial.probe.stored(on: ticker)
            ticker.tick()
            context.event("tick")
            trial.endScope(of: ticker)
        }
        trial.settle { (ticker: Ticker) in ticker.onTick = nil }
        return trial.record(heldBy: "onTick")
    }
}
