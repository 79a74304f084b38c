import Foundation
import LabHarness

/// How the `gated` variant keeps at most `--gate` blocks in the pool: `--gate-with`'s choices.
///
/// To add a way of gating, add a case here (its raw value is the new `--gate-with` word, and
/// `--help` lists it) and its branch in `start`: nothing else names the cases.
public enum GateKind: String, CaseIterable, Sendable {
    /// A dedicated submitter thread waits on a semaphore for a slot before it submits the next
    /// block, so waiting costs that one thread and not a pool worker.
    case semaphore
    /// `OperationQueue.maxConcurrentOperationCount`: the queue holds back the operations.
    case operationQueue = "operation-queue"

    /// Starts `count` runs of `work` (each holds its thread), at most `width` at once, and
    /// returns at once with whatever must stay alive while they run.
    func start(_ count: Int, width: Int, _ work: @escaping @Sendable () -> Void) -> AnyObject? {
        switch self {
        case .semaphore:
            let slots = DispatchSemaphore(value: width)
            NamedThread.start("pool.gate") {
                for _ in 0..<count {
                    slots.wait();
                    DispatchQueue.global().async {
                        work(); slots.signal()
                    }
                }
            }
            return nil
        case .operationQueue:
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = width
            for _ in 0..<count { queue.addOperation(work) }
            return queue
        }
    }
}

/// The same blocking work, but never more than `--gate` blocks in the pool at once.
enum Gated {
    static func run(_ context: VariantContext) -> VariantRecord {
        let p = context.parameters(PoolParameters.self)
        let window = ProbeWindow(ending: .after(p.duration), drain: 1.5)
        var keep: AnyObject?
        let hold = p.block
        // Each block still blocks a pool thread, but at most `gate` of them.
        let result = window.run(context) { blocks in
            keep = p.gateWith.start(p.tasks, width: p.gate) { blocks.hold(hold) }
        }
        withExtendedLifetime(keep) {}  // the work need not finish within the window; the child exits soon after
        let m = result.metrics, count = Format.count
        let atOnce = m[PoolMetric.runningMax] ?? 0, waited = m[PoolMetric.blocksWaited] ?? 0,
            added = m[PoolMetric.threadsAdded] ?? 0
        let narrow = added <= Double(p.gate) + PoolVerdicts.gateSlack.value
        // Seen only when the gate held (at most `gate` at once), made blocks wait, and kept the pool narrow.
        let mechanism = Evidence.when(
            atOnce >= 1 && atOnce <= Double(p.gate) && waited > 0 && narrow,
            "\(p.gateWith.rawValue) gate \(p.gate): at most \(count(atOnce)) blocks ran at once, \(count(waited)) of \(p.tasks) waited for a slot, "
                + "the pool grew \(count(added)) threads (at most gate + \(count(PoolVerdicts.gateSlack.value)))")
        let limit = Responsiveness.limitMs(idleP99Ms: m[PoolMetric.idleNetP99Ms] ?? 0)
        return result.record(
            extra: [PoolMetric.gate: Double(p.gate)],
            evidence: result.probeLine
                + "; limit \(PoolVerdicts.ms(limit)) (\(Responsiveness.responsiveMultiple), at least \(Responsiveness.instant))",
            mechanism: mechanism)
    }
}
