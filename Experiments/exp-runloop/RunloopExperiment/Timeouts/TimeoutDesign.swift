import LabHarness

/// How a request's wait ended.
public enum RaceOutcome: Sendable, Equatable {
    /// The timeout won; `firedAt` is the monotonic instant the design woke the request.
    case timedOut(firedAt: Seconds)
    /// The request completed before its deadline; its timeout was cancelled.
    case completed
}

/// A way of keeping the timeouts of many requests in flight at once.
///
/// The contract, which every design's tests check: each request whose deadline comes before
/// its completion is woken exactly once, never before its deadline (by the monotonic clock);
/// a request that completes first is not woken by its timeout, and its timeout is released.
public protocol TimeoutDesign: Sendable {
    var name: TimeoutDesignName { get }

    /// Waits until `request` finishes or the monotonic instant `deadline` passes, whichever
    /// comes first. A `nil` request never completes (the wait always times out). The loser of
    /// the race is cancelled.
    func race(deadline: Seconds, request: (@Sendable () async -> Void)?) async -> RaceOutcome

    /// What the scheduler answered when the design's own thread asked for real-time priority;
    /// `nil` when it did not ask, as a design without a thread of its own (it runs on threads
    /// it does not own) never does.
    var threadPriority: RealtimePriority.Grant? { get }

    /// How many times the design set a timer so far, where it counts them (`nil` elsewhere):
    /// one run-loop timer per request for `shared-thread`, one timer re-set per firing pass (or
    /// per earlier deadline) for `deadline-heap`. It is the mechanism the sweep's findings name.
    var timersArmed: Int? { get }

    /// Ends what the design started (threads, queues). Pending timeouts are abandoned.
    func stop()
}

extension TimeoutDesign {
    public var timersArmed: Int? { nil }
}
