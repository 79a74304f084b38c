import LabHarness

/// The ways of keeping many requests' timeouts: one name each, for its variant (`--variant
/// deadline-heap`), its sweep points and its verdicts (`shared-thread` is also the request
/// placement of that name: the same thread, measured by the request trial there).
public enum TimeoutDesignName: String, CaseIterable, VariantName {
    /// One run-loop thread, one run-loop `Timer` per request.
    case sharedThread = "shared-thread"
    /// The same kind of thread, ONE run-loop timer set for the earliest deadline of a min-heap.
    case deadlineHeap = "deadline-heap"
    /// No run loop: a `DispatchSourceTimer` per request on one serial queue.
    case dispatchTimer = "dispatch-timer"
    /// No run loop and no thread of its own: a child task sleeping until the deadline.
    case taskSleep = "task-sleep"

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
    case timedOut(firedAt: Seconds)
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
    func race(deadline: Seconds, request: (@Sendable () async -> Void)?) async -> RaceOutcome

    /// What the scheduler answered when the design's own thread asked for real-time priority
    /// (`nil`: the design has no thread of its own, so it never asks).
    var threadPriority: RealtimePriority.Grant? { get }

    /// How many times the design set a timer so far, where it counts them: one run-loop timer
    /// per request for `shared-thread`, its one timer re-set per firing pass for `deadline-heap`.
    /// It is the mechanism the sweep's findings name.
    var timersArmed: Int? { get }

    /// Ends what the design started (threads, queues). Pending timeouts are abandoned.
    func stop()
}

extension TimeoutDesign {
    public var timersArmed: Int? { nil }
    public var threadPriority: RealtimePriority.Grant? { nil }
    public func stop() {}
}
