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

    public init() {}
}

/// The steps of a request, in the order they normally happen.
public enum RequestStep: Sendable {
    case submitted, started, armed, fired, woke, released
}

/// Every request's times, written from whichever thread reaches a step.
public final class RequestLog: Sendable {
    private let times: Mutex<[RequestTimes]>
    public let count: Int

    public init(count: Int) {
        self.count = count
        times = Mutex([RequestTimes](repeating: RequestTimes(), count: count))
    }

    /// Records that request `index` reached `step` now.
    public func mark(_ index: Int, _ step: RequestStep) {
        let now = MonotonicClock.now()
        times.withLock { all in
            switch step {
            case .submitted: all[index].submitted = now
            case .started: all[index].started = now
            case .armed: all[index].armed = now
            case .fired: all[index].fired = now
            case .woke: all[index].woke = now
            case .released: all[index].released = now
            }
        }
    }

    public func snapshot() -> [RequestTimes] { times.withLock { $0 } }

    /// How many requests reached `step` so far.
    public func count(_ step: RequestStep) -> Int {
        times.withLock { all in
            all.reduce(0) { n, t in
                switch step {
                case .submitted: return n + (t.submitted != nil ? 1 : 0)
                case .started: return n + (t.started != nil ? 1 : 0)
                case .armed: return n + (t.armed != nil ? 1 : 0)
                case .fired: return n + (t.fired != nil ? 1 : 0)
                case .woke: return n + (t.woke != nil ? 1 : 0)
                case .released: return n + (t.released != nil ? 1 : 0)
                }
            }
        }
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
