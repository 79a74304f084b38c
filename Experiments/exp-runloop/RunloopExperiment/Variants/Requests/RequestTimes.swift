import Foundation
import LabHarness

/// What happened to one request, as monotonic instants (`nil`: it never happened): one row of
/// the trial's `StepTable`.
///
/// The article's `Foo` blocks its caller until a timeout timer on some run loop fires. Timing every
/// step separately tells *where* a request lost its time: queued before its caller even ran
/// (`submitted` to `started`), waiting for a thread to run its run loop (`started` to `armed`),
/// or in the timer itself (`armed` to `fired`).
public struct RequestTimes: Sendable, Equatable {
    /// Handed to its queue, thread or task; began and started waiting; timer on its run loop.
    public var submitted: TimeInterval?, started: TimeInterval?, armed: TimeInterval?
    /// The timer fired; the caller woke (the request is done); the request's run loop returned,
    /// giving its thread back (per-request run loops only).
    public var fired: TimeInterval?, woke: TimeInterval?, released: TimeInterval?
    /// How long the thread whose timer fired waited in the run queue for a CPU on the way
    /// (since its run loop's block began, or since its birth for a thread of its own): the
    /// machine's part of the timer's lateness, seen on that very thread (Linux; `nil` where the
    /// platform keeps no run-queue time).
    public var runQueueWait: TimeInterval?
    /// The thread whose run loop armed the request's timer (`HostPlatform.currentThreadID`):
    /// how many threads ran the requests' run loops, measured, not assumed from the placement.
    public var armedOn: UInt64?
    /// The instant the armed timer was set to fire: `armed` + timeout for a timer armed "one
    /// timeout from now" (a run loop of the request's own), `started` + timeout for shared-thread's
    /// fixed deadline. A stall while a timer is being armed pushes the first kind back.
    public var due: TimeInterval?

    /// Records that the calling thread's run loop armed the timer, now, to fire at `due`.
    mutating func markArmed(due: TimeInterval) {
        armed = MonotonicClock.now()
        armedOn = HostPlatform.currentThreadID()
        self.due = due
    }

    /// The calling thread's run-queue wait so far (`nil` on Darwin).
    static func threadRunQueueWait() -> TimeInterval? { HostPlatform.currentThreadRunnableTime()?.waiting }

    public init() {}
}
