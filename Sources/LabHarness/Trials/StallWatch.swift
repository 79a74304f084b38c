import Foundation
import Synchronization

/// A control for timing verdicts: a thread of its own that asks to wake every few milliseconds
/// and records how late each wake-up came.
///
/// On a shared 2-core machine a whole process can stall for 30 to 500 ms (measured), and a
/// stall delays whatever was due meanwhile: a timer, a queue hop, a watchdog. A verdict that
/// judges such a delay against a fixed limit would let a busy machine flip it. This thread
/// depends on nothing an experiment studies (no queue, no run loop, no pool), so its lateness
/// is the machine's own at that moment; subtracting it leaves what the mechanism cost.
///
/// Start it before the work, read `delay(from:to:)` for each measured interval (or
/// `worstDelay` for the whole trial) and `stop()` it when done.
///
/// The control must be held up by what holds up the thread it corrects, and by nothing more:
/// a thread at real-time priority is not delayed by normal threads, so a control at normal
/// priority, queued behind them on a busy machine, would subtract delays that thread never
/// had. Such a thread is corrected by a `realtime` watch.
public final class StallWatch: Sendable {
    /// One late wake-up: due at `due`, ran at `woke` (monotonic seconds).
    struct LateWakeUp: Sendable {
        var due: Seconds
        var woke: Seconds
    }

    /// Wake-ups later than this are kept; shorter ones are ordinary scheduling noise, and
    /// keeping only the late ones bounds the memory of a long trial.
    static let keepAbove: Seconds = 0.001

    private let interval: Seconds
    /// Whether every wake-up is kept, however punctual (a floor's percentiles need them all).
    private let keepsEveryWakeUp: Bool
    private let late = Mutex<[LateWakeUp]>([])
    private let state = Mutex((running: true, startedAt: 0.0, stoppedAt: Seconds?.none))
    private let finished = DispatchSemaphore(value: 0)
    private let grant = Mutex<RealtimePriority.Grant?>(nil)

    /// A watch that already stopped, holding the given late wake-ups (due, woke): for checking
    /// the arithmetic of `delay(from:to:)` without stalling a machine.
    init(recorded: [(due: Seconds, woke: Seconds)]) {
        interval = 0.005
        keepsEveryWakeUp = false
        late.withLock { $0 = recorded.map { LateWakeUp(due: $0.due, woke: $0.woke) } }
        state.withLock { $0.running = false }
    }

    /// Starts the control thread, which wakes every `interval` seconds until `stop()`, and
    /// returns once it runs. With `realtime`, the thread first asks for real-time priority
    /// `realtimePriority`: by default one level above `RealtimePriority.requestedPriority`, so
    /// that it is never queued behind the real-time thread it corrects; `priority` says whether
    /// that was granted. With `keepsEveryWakeUp` it keeps every wake-up, not only those more
    /// than `keepAbove` late, for `lateness(dueFrom:to:)` (a floor's percentiles need them all).
    public init(
        interval: Seconds = 0.005, realtime: Bool = false,
        realtimePriority: Int32 = RealtimePriority.requestedPriority + 1,
        keepsEveryWakeUp: Bool = false, threadName: String = "lab.stall-watch"
    ) {
        self.interval = interval
        self.keepsEveryWakeUp = keepsEveryWakeUp
        let start = MonotonicClock.now()
        state.withLock { $0.startedAt = start }
        let running = DispatchSemaphore(value: 0)
        NamedThread.startInstrument(threadName) { [self] in
            if realtime {
                let answer = RealtimePriority.requestForCurrentThread(priority: realtimePriority)
                grant.withLock { $0 = answer }
            }
            running.signal()
            var due = start
            while state.withLock({ $0.running }) {
                due += interval
                MonotonicClock.sleep(until: due)
                let woke = MonotonicClock.now()
                if keepsEveryWakeUp || woke - due > StallWatch.keepAbove {
                    late.withLock { $0.append(LateWakeUp(due: due, woke: woke)) }
                }
                // After a long stall, aim at the next tick from now, not at a backlog of
                // missed ones (which would each report the same stall again).
                if woke - due > interval { due = woke }
            }
            finished.signal()
        }
        // So that `priority` holds the answer once the watch is returned, and a thread watch
        // started after it has it in its baseline.
        _ = running.wait(timeout: .now() + .seconds(5))
    }

    /// The scheduler's answer when the watch was started with `realtime`; `nil` otherwise.
    public var priority: RealtimePriority.Grant? { grant.withLock { $0 } }

    /// Stops the control thread (waits at most a second for it) and returns the worst delay.
    @discardableResult
    public func stop() -> Seconds {
        let alreadyStopped = state.withLock { s -> Bool in
            defer { s.running = false; if s.stoppedAt == nil { s.stoppedAt = MonotonicClock.now() } }
            return !s.running
        }
        if !alreadyStopped { _ = finished.wait(timeout: .now() + .seconds(1)) }
        return worstDelay
    }

    /// How long the control thread was held up within `from...to`: the parts of its late
    /// wake-ups that overlap the interval, added up (they never overlap each other). A timer
    /// due at `from` that fired at `to` owes this much of its lateness to the machine, not to
    /// its mechanism; a run that spanned `from...to` lost this much of its wall time to it.
    public func delay(from: Seconds, to: Seconds) -> Seconds {
        guard to > from else { return 0 }
        return late.withLock { list in
            list.reduce(0) { total, w in
                guard w.woke > from, w.due < to else { return total }
                return total + (min(w.woke, to) - max(w.due, from))
            }
        }
    }

    /// How late each kept wake-up due within `from...to` (monotonic seconds) came, in seconds:
    /// every wake-up of a watch that keeps them all.
    public func lateness(dueFrom from: Seconds, to: Seconds) -> [Seconds] {
        late.withLock { $0.filter { $0.due >= from && $0.due <= to }.map { $0.woke - $0.due } }
    }

    /// The latest wake-up of the whole watch, in seconds (0 when none was late).
    public var worstDelay: Seconds {
        late.withLock { $0.reduce(0) { max($0, $1.woke - $1.due) } }
    }

    /// The watch's figures as metrics: `control.stall_max_ms`, the worst delay of the control
    /// thread, reported beside the raw timings it corrects.
    public var metrics: Metrics {
        var m = Metrics()
        m[Metrics.controlStallMax] = worstDelay * 1000
        return m
    }
}
