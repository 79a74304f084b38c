import Foundation
import LabHarness
import Synchronization

/// Where a request's run loop lives: the question the article asks.
public enum Placement: String, Sendable, CaseIterable {
    /// A block on the global concurrent queue runs the run loop (the article's second way). The
    /// block holds a pool thread for the whole timeout, and it waits behind everything queued
    /// before it, including the callers that are waiting for it.
    case globalQueue = "global-queue"
    /// A new `Thread` per request runs the run loop (the article's first way).
    case dedicatedThread = "dedicated-thread"
    /// One long-lived run-loop thread serves every request's timer (AFNetworking 2.x).
    case sharedThread = "shared-thread"
    /// An `OperationQueue` with `maxConcurrentOperationCount` 300 runs the run loop (the article's
    /// commented-out third way). Operation queues dispatch onto the same global pool.
    case operationQueue = "operation-queue"
    /// `globalQueue` with the article's double guard, `run(until: timeout + guard)` (5 s in the article).
    case runUntilDate = "run-until-date"
    /// `dedicatedThread` as the article wrote it: a port, `RunLoop.run()` and `CFRunLoopStop`.
    case literalRun = "literal-run"

    /// Whether the run loops wait for the global pool's threads, as blocked callers do.
    var runsOnPool: Bool { self == .globalQueue || self == .operationQueue || self == .runUntilDate }

    /// Whether each request gets a run loop of its own (and so a thread for its timeout).
    var runLoopPerRequest: Bool { self != .sharedThread }
}

/// The machinery a trial's requests share: the shared thread, the operation queue.
final class PlacementRuntime: Sendable {
    let placement: Placement, timeout: TimeInterval, guardSeconds: TimeInterval
    let log: StepTable<RequestTimes>, gauge = PeakGauge()
    private let shared: SharedRunLoopThread?
    /// The operation-queue placement's queue, as the article sets it up.
    private let operations = OperationQueue()

    init(_ placement: Placement, timeout: TimeInterval, guardSeconds: TimeInterval, log: StepTable<RequestTimes>) throws
    {
        (self.placement, self.timeout, self.guardSeconds, self.log) = (placement, timeout, guardSeconds, log)
        operations.maxConcurrentOperationCount = 300
        shared = placement == .sharedThread ? SharedRunLoopThread.start(gauge: gauge) : nil
        if placement == .sharedThread, shared == nil {
            throw SetupError(description: "no socket port for the shared run loop")
        }
    }

    /// Starts request `index`'s timeout on its run loop; `onTimeout` runs when its timer fires.
    func launch(_ index: Int, onTimeout: @escaping @Sendable () -> Void) {
        let (timeout, guardSeconds, log, gauge) = (self.timeout, self.guardSeconds, self.log, self.gauge)
        let work: @Sendable (TimeoutRunLoop.Style, Bool) -> Void = { style, ownThread in
            TimeoutRunLoop.run(
                index, timeout: timeout, style: style, log: log, gauge: gauge, ownThread: ownThread,
                onTimeout: onTimeout)
        }
        switch placement {
        case .globalQueue: DispatchQueue.global().async { work(.untilStopped, false) }
        case .runUntilDate: DispatchQueue.global().async { work(.untilDate(guardSeconds: guardSeconds), false) }
        case .dedicatedThread: NamedThread.start("rl.request") { work(.untilStopped, true) }
        case .literalRun: NamedThread.start("rl.request") { work(.forever, true) }
        case .operationQueue: operations.addOperation { work(.untilStopped, false) }
        case .sharedThread:
            // The shared thread's run-queue wait from arming to firing: what the machine made it wait.
            let armWait = Mutex<TimeInterval?>(nil), deadline = MonotonicClock.now() + timeout
            shared?.schedule(
                at: deadline,
                onArmed: {
                    log.update(index) { $0.markArmed(due: deadline) }
                    armWait.withLock { $0 = RequestTimes.threadRunQueueWait() }
                },
                onFire: {
                    log.mark(index, \.fired)
                    if let end = RequestTimes.threadRunQueueWait(), let start = armWait.withLock({ $0 }) {
                        log.mark(index, \.runQueueWait, end - start)
                    }
                    onTimeout()
                })
        }
    }

    func stop() { shared?.stop() }
}

struct SetupError: Error, CustomStringConvertible { var description: String }
