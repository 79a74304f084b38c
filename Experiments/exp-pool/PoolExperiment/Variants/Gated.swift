import Foundation
import LabHarness

/// The same blocking work, but never more than `--gate` blocks in the pool at once.
///
/// The gate sits in front of the queue: a dedicated submitter thread waits for a slot before it
/// submits the next block, so waiting costs that one thread and not a pool worker.
/// `OperationQueue.maxConcurrentOperationCount` does the same job and measures the same
/// (`--gate-with operation-queue`).
enum Gated {
    static func run(_ context: VariantContext) -> VariantRecord {
        let p = PoolParameters(context.options)
        let window = ProbeWindow(parameters: p, idleProbes: p.idleProbes, expected: p.tasks, ending: .after(p.duration), drain: 1.5)
        let operations = OperationQueue()
        operations.maxConcurrentOperationCount = p.gate
        let result = window.run(context) { ledger in
            let hold = p.block
            if p.gateWith == "operation-queue" {
                for _ in 0..<p.tasks {
                    operations.addOperation {
                        ledger.begin()
                        MonotonicClock.sleep(for: hold)   // still blocks a pool thread, but at most `gate` of them
                        ledger.end()
                    }
                }
            } else {
                let slots = DispatchSemaphore(value: p.gate)
                let tasks = p.tasks
                NamedThread.start("pool.gate") {
                    for _ in 0..<tasks {
                        slots.wait()
                        DispatchQueue.global().async {
                            ledger.begin()
                            MonotonicClock.sleep(for: hold)   // still blocks a pool thread, but at most `gate` of them
                            ledger.end()
                            slots.signal()
                        }
                    }
                }
            }
        }
        // The gated work need not finish within the window; the queue lives until the watch ends
        // and the child exits soon after.
        withExtendedLifetime(operations) {}
        return result.record(extra: [PoolMetric.blockS: p.block, PoolMetric.gate: Double(p.gate)])
    }
}
