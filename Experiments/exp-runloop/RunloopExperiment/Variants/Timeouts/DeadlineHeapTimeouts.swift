import Foundation
import LabHarness
import Synchronization

/// `deadline-heap`: one long-lived run-loop thread, like `shared-thread`'s, but with ONE run-loop
/// timer for every request. The pending deadlines live in a `DeadlineHeap`; the timer is set for
/// the earliest, and when it fires it wakes every request that is due in one pass, then is set
/// for the next earliest.
///
/// Arming is a lock and a heap insert on the caller's thread (O(log n)); the run loop hears of
/// it only when the new deadline is earlier than the timer's, once per burst for requests with
/// the same timeout. `shared-thread` hands every request to the run loop (a performed block and
/// a wake-up) and inserts a `CFRunLoopTimer` per request into its sorted timer list. Both
/// threads ask for real-time priority, so the two differ only in their bookkeeping.
public final class DeadlineHeapTimeouts: CallbackTimeoutDesign {
    public typealias Token = DeadlineHeap<@Sendable (TimeInterval) -> Void>.Handle

    /// What the run-loop thread and the callers share: the heap, and the deadline the timer is
    /// set for (or about to be; +∞ when idle).
    private struct Pending {
        var heap = DeadlineHeap<@Sendable (TimeInterval) -> Void>(), armedFor = TimeInterval.infinity
    }

    // `Timer` is not Sendable; it is created, set and invalidated on the run-loop thread only.
    private final class LoopState: @unchecked Sendable { var timer: Timer? }

    private let pending = Mutex(Pending()), loop = LoopState(), thread = SharedRunLoopThread(),
        timerSets = Atomic<Int>(0), priority = PriorityAnswer()

    /// How many times the one run-loop timer was set: once per firing pass or earlier deadline.
    public var timersArmed: Int? { timerSets.load(ordering: .relaxed) }
    public var threadPriority: (granted: Bool, text: String)? { priority.value }
    private init() {}

    /// Starts the thread and returns once its run loop and timer exist. With `realtime` the
    /// thread first asks for real-time priority: its one job is to be on time, and it uses
    /// little CPU, so it may run ahead of the callers it wakes (see `RealtimePriority`).
    public static func start(threadName: String = "rl.heap", realtime: Bool) -> DeadlineHeapTimeouts? {
        let design = DeadlineHeapTimeouts()
        // Repeating with a huge interval so CoreFoundation never invalidates it after a firing;
        // every firing sets its next date explicitly. `Timer(fire:interval:repeats:block:)`
        // because `Timer(timeInterval:repeats:block:)` fires at once on Linux.
        //
        // The timer also keeps the run loop alive: a mode with a timer in it is not empty, so
        // `run(mode:before:)` waits instead of returning at once. No port is needed, and a
        // `SocketPort` would cost a thread: CFSocket on Linux watches its sockets from a
        // manager thread of its own (which is why `shared-thread` shows two threads).
        let started = design.thread.start(name: threadName, prepare: { design.priority.ask(if: realtime) }) {
            runLoop in
            let timer = Timer(fire: .distantFuture, interval: 1e9, repeats: true) { _ in design.fireDue() }
            runLoop.add(timer, forMode: .default)
            design.loop.timer = timer
            return {
                timer.invalidate(); design.loop.timer = nil
            }
        }
        return started ? design : nil
    }

    public func arm(at deadline: TimeInterval, onFire: @escaping @Sendable (TimeInterval) -> Void) -> Token {
        let (token, earlier) = pending.withLock { p in
            let token = p.heap.insert(onFire, deadline: deadline)
            guard deadline < p.armedFor else { return (token, false) }
            p.armedFor = deadline
            return (token, true)
        }
        // Only the run-loop thread sets its timer: ask it, and wake it so it does so now.
        if earlier { thread.perform { [self] in resetTimer() } }
        return token
    }

    @discardableResult
    public func cancel(_ token: Token) -> Bool {
        // The timer may stay set for this deadline; firing then finds nothing due and re-arms.
        pending.withLock { $0.heap.remove(token) } != nil
    }

    /// Sets the timer for the earliest pending deadline. Run-loop thread only.
    private func resetTimer() {
        let earliest = pending.withLock { p in
            p.armedFor = p.heap.earliestDeadline ?? .infinity
            return p.armedFor
        }
        setTimer(for: earliest)
    }

    /// The timer's one pass: takes every due request out under the lock and wakes them outside
    /// it (callers keep arming meanwhile), again until nothing more is due, then sets the timer
    /// for the next earliest. A firing a little early finds nothing due and just re-arms, so no
    /// request is woken before its deadline.
    private func fireDue() {
        var next = TimeInterval.infinity
        while !thread.isStopping {
            let (due, earliest) = pending.withLock { p in
                let due = p.heap.popDue(by: MonotonicClock.now())
                p.armedFor = p.heap.earliestDeadline ?? .infinity
                return (due, p.armedFor)
            }
            next = earliest
            if due.isEmpty { break }
            for entry in due { entry.payload(MonotonicClock.now()) }
        }
        setTimer(for: next)
    }

    private func setTimer(for deadline: TimeInterval) {
        guard let timer = loop.timer else { return }
        timerSets.wrappingAdd(1, ordering: .relaxed)
        timer.fireDate =
            deadline.isFinite ? Date(timeIntervalSinceNow: deadline - MonotonicClock.now()) : .distantFuture
    }

    public func stop() { thread.stop() }
}
