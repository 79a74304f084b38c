import LabHarness

/// Counts ticks through a handler it keeps. The handler names `self`, so the ticker holds the
/// handler and the handler holds the ticker: a cycle that no line of the caller shows.
final class Ticker {
    private(set) var ticks = 0
    var onTick: (() -> Void)?
    let lifetime: LifetimeTag

    init(lifetime: LifetimeTag) {
        self.lifetime = lifetime
    }

    /// The handler `start()` stores, made apart so the probe can see it before it is stored.
    func makeTickHandler() -> () -> Void {
        { self.ticks += 1 }   // a strong capture of self: the point of this variant
    }

    func start() { onTick = makeTickHandler() }
    func tick() { onTick?() }
}

/// `strong-capture`: the owner stores a closure that captures it strongly.
enum StrongCapture {
    static func run(_ context: VariantContext) -> VariantRecord {
        let trial = DanceTrial(context, owner: "ticker")
        weak var leftBehind: Ticker?   // only to break the cycle once the leak has been measured
        do {
            let ticker = Ticker(lifetime: trial.lifetime.tag())
            trial.lifetime.track(ticker)
            trial.probe.begin(ticker)
            trial.probe.created(on: ticker, ticker.makeTickHandler())
            ticker.start()
            trial.probe.stored(on: ticker)
            ticker.tick()
            trial.log.record("tick")
            leftBehind = ticker
            trial.lifetime.endScope(of: ticker)
        }
        let extra = trial.settle {
            guard let ticker = leftBehind else { return false }
            ticker.onTick = nil
            return true
        }
        let evidence = "the stored handler holds the ticker (\(trial.probe.onceStored?.description ?? "?") once stored); "
            + trial.releaseSummary + DanceTrial.breakSummary(extra, what: "onTick")
        return trial.record(trial.releaseOutcome, extra: extra, evidence: evidence)
    }
}
