import Dispatch
import LabHarness

/// The blocking work on its own serial queue: one thread at a time, from the overcommit pool on
/// Linux, not the default pool the probes use. The work is slow, but nothing else waits for it.
enum SerialQueue {
    static func run(_ context: VariantContext) -> VariantRecord {
        let p = context.parameters(PoolParameters.self)
        let window = ProbeWindow(ending: .after(p.duration), drain: 1.5)
        let queue = DispatchQueue(label: "pool.serial"), hold = p.block
        // Each block holds the serial queue's one thread, on purpose.
        let result = window.run(context) { blocks in for _ in 0..<p.tasks { queue.async { blocks.hold(hold) } } }
        return result.record(evidence: result.probeLine)
    }
}

/// Each block on its own serial queue: what "overcommit" means. The overcommit root queue's pool
/// makes a thread for each waiting item at once, up to the same 255 cap (a few hundred blocking
/// queues reach it in a fraction of a second); the default pool the probes use is separate.
enum OvercommitFlood {
    static func run(_ context: VariantContext) -> VariantRecord {
        let p = context.parameters(PoolParameters.self)
        let window = ProbeWindow(ending: .allStarted(within: p.duration), drain: 1.5)
        let queues = (0..<p.tasks).map { DispatchQueue(label: "pool.overcommit.\($0)") }, hold = p.block
        // Each block holds an overcommit thread on purpose.
        let result = window.run(context) { blocks in for queue in queues { queue.async { blocks.hold(hold) } } }
        var record = result.record(evidence: result.probeLine)
        // The count jumps at once and then stays flat: a slope through that says nothing.
        record.metrics[PoolMetric.growthThreadsPerS] = nil
        return record
    }
}
