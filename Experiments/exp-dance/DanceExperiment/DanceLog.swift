import LabHarness
import Synchronization

/// What happened in a variant, in the order it happened: the `completion2`, `scope-end` and
/// `deinit` lines the seed printed with `NSLog`, with monotonic timestamps instead.
///
/// Closures in the variants record into it from whichever thread runs them (the main queue's
/// delayed blocks included), so it is `Sendable`; it never holds an owner, so recording into it
/// captures nothing that matters to the experiment.
public final class DanceLog: Sendable {
    /// The instant that reads as t = 0 in the events: the start of the trial.
    public let origin: Seconds
    private let entries = Mutex<[Entry]>([])

    struct Entry: Sendable {
        var at: Seconds
        var label: String
        var thread: String?
    }

    public init(origin: Seconds) {
        self.origin = origin
    }

    /// Records `label` now, on the calling thread.
    public func record(_ label: String) {
        let entry = Entry(at: MonotonicClock.now(), label: label, thread: CurrentThread.name)
        entries.withLock { $0.append(entry) }
    }

    /// Records `label` at an instant measured elsewhere (a `LifetimeTag`'s deinit time, whose
    /// thread is not known).
    public func record(_ label: String, at instant: Seconds) {
        entries.withLock { $0.append(Entry(at: instant, label: label, thread: nil)) }
    }

    /// The monotonic instant of the first `label`, if it happened.
    public func instant(of label: String) -> Seconds? {
        entries.withLock { entries in entries.first { $0.label == label }?.at }
    }

    /// Whether `label` was recorded.
    public func contains(_ label: String) -> Bool { instant(of: label) != nil }

    /// The events for the report, ordered by time (ties keep the order they were recorded in),
    /// with `t` in seconds since `origin`.
    public var events: [TimedEvent] {
        let sorted = entries.withLock { entries in
            entries.enumerated().sorted { a, b in a.element.at != b.element.at ? a.element.at < b.element.at : a.offset < b.offset }
        }
        return sorted.map { TimedEvent(t: $0.element.at - origin, label: $0.element.label, thread: $0.element.thread) }
    }
}
