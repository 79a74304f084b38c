import LabHarness

/// Reads a sensor and hands each reading to a handler it keeps. The handler gets the thermostat
/// as its parameter, so it never names `self` and captures nothing: the heap-stack dance. The
/// parameter lives for one call (on the stack or in a register), the stored closure holds no
/// reference, and there is no weak/strong boilerplate to forget.
final class Thermostat {
    private(set) var readings = 0
    var onReading: ((Thermostat) -> Void)?
    let onDeinit: () -> Void
    init(onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
    deinit { onDeinit() }  // the trial's release instant, as the article's dealloc logs "deinit"

    /// The handler `start()` stores, made apart so the probe can see it before it is stored.
    func makeReadingHandler() -> (Thermostat) -> Void {
        { thermostat in thermostat.readings += 1 }
    }

    func start() { onReading = makeReadingHandler() }
    func read() { onReading?(self) }
}

/// `heap-stack`: the thermostat goes at its scope's end, and no reference count moved for the handler.
enum HeapStack {
    static func run(_ context: VariantContext) -> VariantRecord {
        let trial = OwnerTrial(context, owner: "thermostat")
        do {
            let thermostat = Thermostat(onDeinit: trial.ownerDeinit)
            trial.watch(thermostat)
            trial.probe.created(on: thermostat, thermostat.makeReadingHandler())
            thermostat.start()
            trial.probe.stored(on: thermostat)
            thermostat.read()
            context.event("reading")
            trial.endScope(of: thermostat)
        }
        trial.awaitRelease()
        return trial.record(heldBy: "the handler")
    }
}
