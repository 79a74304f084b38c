import Foundation
import LabHarness
import Synchronization

/// The ways of keeping many requests' timeouts: one name each, for its variant (`--variant
/// deadline-heap`), its sweep points and its verdicts (`shared-thread` is also the request
/// placement of that name: the same thread, measured by the request trial there).
public enum TimeoutDesignName: String, CaseIterable, Sendable {
    /// One run-loop thread with a run-loop `Timer` per request; the same kind of thread with ONE
    /// timer set for the earliest deadline of a min-heap; no run loop, a `DispatchSourceTimer`
    /// per request on one serial queue; no thread of its own, a child task sleeping until the
    /// deadline.
    case sharedThread = "shared-thread", deadlineHeap = "deadline-heap", dispatchTimer = "dispatch-timer", taskSleep =
        "task-sleep"

    /// The two run-loop designs keep their timeouts on a thread of their own that asks for
    /// real-time priority, so a sweep compares their bookkeeping, not their priority (and their
    /// same-moment control asks too, or it would subtract delays only normal threads suffer).
    public var runsOnRealtimeThread: Bool { self == .sharedThread || self == .deadlineHeap }

    /// Starts the design; `nil` if it could not start (no port for a run-loop thread).
    public func start() -> (any TimeoutDesign)? {
        switch self {
        case .sharedThread: SharedThreadTimeouts.start(realtime: runsOnRealtimeThread)
        case .deadlineHeap: DeadlineHeapTimeouts.start(realtime: runsOnRealtimeThread)
        case .dispatchTimer: DispatchTimerTimeouts()
        case .taskSleep: TaskSleepTimeouts()
        }
    }
}

/// How a request's wait ended: its timeout woke it (at `firedAt`, monotonic), or it completed
/// first and its timeout was cancelled.
public enum RaceOutcome: Sendable, Equatable {
    case timedOut(firedAt: TimeInterval)
    case completed
}

/// A way of keeping the timeouts of many requests in flight at once.
///
/// The contract, which every design's tests check: each request whose deadline comes before
/// its completion is woken exactly once, never before its deadline (by the monotonic clock);
/// a request that completes first is not woken by its timeout, and its timeout is released.
public protocol TimeoutDesign: Sendable {
    /// Waits until `request` finishes or the monotonic instant `deadline` passes, whichever
    /// comes first. A `nil` request never completes. The loser of the race is cancelled.
    func race(deadline: TimeInterval, request: (@Sendable () async -> Void)?) async -> RaceOutcome

    /// The scheduler's answer when the design's own thread asked for real-time priority (`nil`:
    /// no thread of its own); how many times it set a timer, where it counts them (one per
    /// request for `shared-thread`, one per firing pass for `deadline-heap`: the sweep's mechanism).
    var threadPriority: (granted: Bool, text: String)? { get }
    var timersArmed: Int? { get }

    /// Ends what the design started (threads, queues). Pending timeouts are abandoned.
    func stop()
}

extension TimeoutDesign {
    public var timersArmed: Int? { nil }
    public var threadPriority: (granted: Bool, text: String)? { nil }
    public func stop() {}
}

/// The scheduler's answer to a design thread's request for real-time priority (the two
/// run-loop designs ask on their thread, first thing).
final class PriorityAnswer: Sendable {
    private let answer = Mutex<(granted: Bool, text: String)?>(nil)
    /// Whether the thread got it, and the answer in words ("real-time priority (SCHED_FIFO 1)",
    /// "normal priority (real-time refused: …)"); `nil` before it asked, or when it did not.
    var value: (granted: Bool, text: String)? { answer.withLock { $0 } }

    /// Asks for the calling thread, when `realtime`.
    func ask(if realtime: Bool) {
        guard realtime else { return }
        let grant = RealtimePriority.requestForCurrentThread()
        answer.withLock { $0 = (grant.isGranted, grant.description) }
    }
}
