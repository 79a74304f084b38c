import Dispatch
import LabHarness

/// The same delays as timers: `asyncAfter` keeps a deadline, not a thread.
///
/// Waiting happens in the dispatch manager's timer list; a worker is needed only for the
/// instant each handler runs.
enum NonBlocking {
    static func run(_ context: VariantContext) -> VariantRecord {
        let p = PoolParameters(context.options)
        let window = ProbeWindow(parameters: p, idleProbes: p.idleProbes, expected: p.tasks, ending: .allStarted(within: p.block + 10), drain: 1)
        let result = window.run(context) { ledger in
            for _ in 0..<p.tasks {
                let due = MonotonicClock.now() + p.block
                DispatchQueue.global().asyncAfter(deadline: .now() + p.block) {
                    ledger.fired(lateness: MonotonicClock.now() - due)
                }
            }
        }
        var extra: Metrics = [PoolMetric.blockS: p.block]
        if let lateness = LatencySummary(result.ledger.lateness) {
            extra.merge(lateness.metrics(prefix: "lateness", unit: "_ms", scale: 1000))
        }
        let allFired = result.ledger.started >= p.tasks
        return result.record(outcome: allFired ? .completed : .stalled, extra: extra)
    }
}
