import Dispatch
import LabHarness

/// The blocking work on its own serial queue; probes stay on the global queue.
///
/// A serial queue needs one thread at a time, and on Linux it takes it from the overcommit
/// pool, not from the default pool the probes use. The work is slow (one block after another)
/// but nothing else waits for it.
enum SerialQueue {
    static func run(_ context: VariantContext) -> VariantRecord {
        let p = context.parameters(PoolParameters.self)
        let window = ProbeWindow(idleProbes: p.idleProbes, expected: p.tasks, ending: .after(p.duration), drain: 1.5)
        let queue = DispatchQueue(label: "pool.serial")
        let result = window.run(context) { blocks in
            let hold = p.block
            for _ in 0..<p.tasks { queue.async { blocks.hold(hold) } }   // blocks the serial queue's one thread, on purpose
        }
        return result.record(extra: Metrics([PoolMetric.blockS: p.block]), evidence: result.probeLine)
    }
}
