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
        // Kept alive until the child exits; the gated work need not finish within the window.
        let result = window.run(context) { ledger in
            let hold = p.block
            let width = p.gate
            if p.gateWith == "operation-queue" {
                let queue = OperationQueue()
                queue.maxConcurrentOperationCount = width
                for _ in 0..<p.tasks {
                    queue.addOperation {
                        ledger.begin()
                        MonotonicClock.sleep(for: hold)   // still blocks a pool thread, but at most `width` of them
                        ledger.end()
                    }
                }
                OperationQueueKeeper.keep(queue)
            } else {
                let slots = DispatchSemaphore(value: width)
                let tasks = p.tasks
                NamedThread.start("pool.gate") {
                    for _ in 0..<tasks {
                        slots.wait()
                        DispatchQueue.global().async {
                            ledger.begin()
                            MonotonicClock.sleep(for: hold)   // still blocks a pool thread, but at most `width` of them
                            ledger.end()
                            slots.signal()
                        }
                    }
                }
            }
        }
        return result.record(extra: ["block_s": p.block, "gate": Double(p.gate)])
    }
}

/// Holds an `OperationQueue` for the rest of the child's life (the child ends with `_exit`).
enum OperationQueueKeeper {
    nonisolated(unsafe) private static var queues: [OperationQueue] = []   // touched only from the child's main thread

    static func keep(_ queue: OperationQueue) { queues.append(queue) }
}
