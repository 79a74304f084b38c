import LabHarness
import Synchronization

/// What happened to one request, as monotonic instants (`nil`: it never happened).
///
/// The seed's `Foo` blocks its caller until a timeout timer on some run loop fires. Timing every
/// step separately tells *where* a request lost its time: queued before its caller even ran
/// (`submitted` to `started`), waiting for a thread to run its run loop (`started` to `armed`),
/// or in the timer itself (`armed` to `fired`).
public struct RequestTimes: Sendable, Equatable {
    /// The caller was handed to its queue, thread or task.
    public var submitted: Seconds?
    /// The caller began the request and started waiting for it.
    public var started: Seconds?
    /// The timeout timer was on its run loop.
    public var armed: Seconds?
    /// The timer fired.
    public var fired: Seconds?
    /// The caller woke up: the request is done.
    public var woke: Seconds?
    /// The request's run loop returned, giving its thread back (per-request run loops only).
    public var released: Seconds?
    /// How long the thread whose timer fired waited in the run queue for a CPU on the way
    /// (since its run loop's block began, or since its birth for a thread of its own): the
    /// machine's part of the timer's lateness, seen on that very thread (Linux; `nil` where the
    /// platform keeps no run-queue time).
    public var runQueueWait: Seconds?

    /// The calling thread's run-queue wait so far (`nil` on Darwin).
    static func threadRunQueueWait() -> Seconds? { HostPlatform.currentThreadRunnableTime()?.waiting }

    public init() {}
}

/// A step of a request: the field of `RequestTimes` it sets (`\.started`, `\.fired`).
public typealias RequestStep = WritableKeyPath<RequestTimes, Seconds?>

/// Every request's times, written from whichever thread reaches a step: the trial's
/// measurements, one row per request, which its metrics and its mechanism are computed from
/// (not an event log: the events of 300 requests would bury the trial's own in the report).
public final class RequestLog: Sendable {
    private let times: Mutex<[RequestTimes]>

    public init(count: Int) {
        times = Mutex([RequestTimes](repeating: RequestTimes(), count: count))
    }

    /// Records that request `index` reached `step` now (or records `value` there).
    public func mark(_ index: Int, _ step: RequestStep, _ value: Seconds? = nil) {
        let now = value ?? MonotonicClock.now()
        times.withLock { $0[index][keyPath: step] = now }
    }

    public func snapshot() -> [RequestTimes] { times.withLock { $0 } }

    /// How many requests reached `step` so far.
    public func count(_ step: RequestStep) -> Int {
        times.withLock { $0.filter { $0[keyPath: step] != nil }.count }
    }
}

/// Counts the threads that are inside a request's run loop right now, and the most at once.
///
/// This is the cost the placements differ in: a thread per request in flight, or one thread
/// for everything. Counting it directly beats inferring it from the process's thread count,
/// which also holds the callers' threads.
public final class RunLoopThreadGauge: Sendable {
    private let state = Mutex((now: 0, peak: 0))

    public init() {}

    public func enter() { state.withLock { s in s.now += 1; s.peak = max(s.peak, s.now) } }
    public func leave() { state.withLock { s in s.now -= 1 } }
    public var current: Int { state.withLock { $0.now } }
    public var peak: Int { state.withLock { $0.peak } }
}
