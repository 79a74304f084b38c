import Synchronization

/// A counter that work advances as it makes progress; watchdogs and child-process trials watch it.
///
/// "Progress" is whatever the experiment counts: requests completed, blocks started, callbacks
/// received. A stall is a stretch of time in which the counter did not move.
public final class ProgressCounter: Sendable {
    private let storage = Atomic<Int>(0)
    private let changedAt: Atomic<UInt64>

    public init() {
        changedAt = Atomic(MonotonicClock.now().bitPattern)
    }

    /// Adds `amount` (1 by default) and returns the new value.
    @discardableResult
    public func advance(by amount: Int = 1) -> Int {
        let value = storage.add(amount, ordering: .relaxed).newValue
        changedAt.store(MonotonicClock.now().bitPattern, ordering: .relaxed)
        return value
    }

    public var value: Int { storage.load(ordering: .relaxed) }

    /// Monotonic instant of the last `advance` (or of creation).
    public var lastChange: Seconds { Seconds(bitPattern: changedAt.load(ordering: .relaxed)) }

    /// How the wait in `wait(forAtLeast:stallWindow:budget:)` ended.
    public enum WaitResult: Sendable, Equatable {
        /// The counter reached the target.
        case reached(at: Seconds)
        /// The counter did not move for the whole stall window.
        case stalled(value: Int, lastChange: Seconds, detectedAt: Seconds)
        /// The overall budget ran out while the counter was still moving.
        case outOfBudget(value: Int)

        public var reached: Bool { if case .reached = self { return true } else { return false } }
    }

    /// Blocks the calling thread until the counter reaches `target`, or it has not moved for
    /// `stallWindow` seconds, or `budget` seconds have passed. Polls every few milliseconds, so
    /// a stall is detected within `stallWindow` plus one poll.
    public func wait(forAtLeast target: Int, stallWindow: Seconds, budget: Seconds = .infinity) -> WaitResult {
        let start = MonotonicClock.now()
        let poll = Swift.min(Swift.max(stallWindow / 50, 0.001), 0.01)
        var seen = value
        var seenAt = start
        while true {
            let now = MonotonicClock.now()
            let current = value
            if current >= target { return .reached(at: now) }
            if current != seen { seen = current; seenAt = Swift.max(lastChange, start) }
            if now - seenAt >= stallWindow { return .stalled(value: current, lastChange: seenAt, detectedAt: now) }
            if now - start >= budget { return .outOfBudget(value: current) }
            MonotonicClock.sleep(for: poll)
        }
    }
}
