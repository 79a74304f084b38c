import Foundation
import Synchronization

/// The same-moment control of an async `assertCompletes`: whether the cooperative pool could
/// run a task while the operation had its budget, and whether the whole machine stalled.
///
/// The operation runs in a task on the concurrency pool, whose threads are few (one per core).
/// Code that blocks them (a synchronous wait in another Swift Testing test running beside it, a
/// semaphore in async code, or the operation itself) keeps the operation from running at all,
/// and the assertion saw only "did not complete". Beside the operation, a control task wakes
/// every `tick`; what it lost past its ticks is what any new task lost. A thread of the
/// harness's own ticks likewise: what it lost, the whole machine lost (a stall). When the
/// budget runs out with the operation unfinished and the control overdue, that thread takes
/// every thread's stack at once, while whatever holds the pool still holds it.
///
/// The control cannot tell the operation's own blocking from other code's: the failure says
/// the pool was held and shows where every thread was, which tells them apart.
final class PoolWatch: Sendable {
    /// Seconds between the control's wakes.
    static let tick: Seconds = 0.005
    /// What the pool may lose, beyond what the machine lost, before the failure speaks of it:
    /// a quarter of the budget, and at least 20 ms (a few ticks of scheduling noise).
    static let notableShare = 0.25, notableFloor: Seconds = 0.02

    private struct Clock {
        var last: Seconds
        var lost: Seconds = 0
        /// Adds what passed since the last wake beyond two ticks (one for the sleep, one for a
        /// wake's own scheduling, which would otherwise add up over a long wait).
        mutating func wake(at now: Seconds) {
            lost += max(0, now - last - 2 * PoolWatch.tick)
            last = now
        }
        /// `lost`, plus how far past its next wake it is now.
        func lost(at now: Seconds) -> Seconds { lost + max(0, now - last - 2 * PoolWatch.tick) }
    }

    private let pool: Mutex<Clock>
    private let machine: Mutex<Clock>
    private let stacks = Mutex<StackSnapshot?>(nil)
    private let stopped = Atomic<Bool>(false)
    /// Whether the thread has looked at the budget's end (and taken the stacks, if it did).
    private let looked = Atomic<Bool>(false)
    private let threadStarted = Atomic<Bool>(false)
    /// Whether the watch's thread is taking the stacks: its lateness then is its own work.
    private let capturing = Atomic<Bool>(false)
    private let budgetEnd: Seconds
    private let timeout: Seconds

    /// Starts the control task and the watch's thread, for an operation started now with
    /// `timeout`; `finished` tells whether the operation has ended.
    init(timeout: Seconds, finished: @escaping @Sendable () -> Bool) {
        let now = MonotonicClock.now()
        self.timeout = timeout
        budgetEnd = now + timeout
        pool = Mutex(Clock(last: now))
        machine = Mutex(Clock(last: now))
        // At the caller's priority, as the operation's task: Linux's libdispatch gives each
        // priority a cooperative queue with threads of its own, so another would not compete.
        Task.detached(priority: Task.currentPriority) { [self] in
            while !stopped.load(ordering: .acquiring) {
                pool.withLock { $0.wake(at: MonotonicClock.now()) }
                try? await Task.sleep(nanoseconds: UInt64(Self.tick * 1e9))
            }
        }
        let started = NamedThread.startInstrumentReporting("lab.poolwatch", stackSize: 512 * 1024) { [self] in
            watch(finished: finished)
        }
        threadStarted.store(started, ordering: .releasing)
    }

    private func watch(finished: () -> Bool) {
        while !stopped.load(ordering: .acquiring) {
            MonotonicClock.sleep(for: Self.tick)
            let now = MonotonicClock.now()
            machine.withLock { $0.wake(at: now) }
            guard !looked.load(ordering: .acquiring), now >= budgetEnd else { continue }
            if !finished(), heldNow(at: now) {
                // Taken now, while whatever holds the pool still holds it.
                capturing.store(true, ordering: .releasing)
                let snapshot = HangStacks.ofThisProcess()
                stacks.withLock { $0 = snapshot }
                // The capture's own time is this thread's work, not a stall of the machine.
                machine.withLock { $0.last = MonotonicClock.now() }
                capturing.store(false, ordering: .releasing)
            }
            looked.store(true, ordering: .releasing)
        }
    }

    /// Whether the control is overdue by more than the machine's own lateness explains.
    private func heldNow(at now: Seconds) -> Bool {
        let overdue = max(0, now - pool.withLock { $0.last } - 2 * Self.tick)
        return overdue >= Self.notable(timeout)
    }

    static func notable(_ timeout: Seconds) -> Seconds { max(notableFloor, notableShare * timeout) }

    /// What the whole machine has taken from the wait so far, at most `StallAllowance.most`
    /// (0 when the watch has no thread: nothing measured it).
    /// While the thread takes the stacks, only what it had lost before.
    var machineLost: Seconds {
        guard threadStarted.load(ordering: .acquiring) else { return 0 }
        let now = MonotonicClock.now(), busy = capturing.load(ordering: .acquiring)
        return min(StallAllowance.most, machine.withLock { busy ? $0.lost : $0.lost(at: now) })
    }

    /// Stops the control and the thread, and returns the clause the failure adds: empty when
    /// neither the pool nor the machine lost a notable share of the wait. For an operation that
    /// had not ended at its budget (`ended` false) it first lets the thread look at the budget's
    /// end and take the stacks if the pool is held, within their budgets; it suspends meanwhile,
    /// never blocks.
    func finish(ended: Bool) async -> String {
        let now = MonotonicClock.now()
        let poolLost = pool.withLock { $0.lost(at: now) }
        let busy = capturing.load(ordering: .acquiring)  // the capture's time is not the machine's
        let machineLost = machine.withLock { busy ? $0.lost : $0.lost(at: now) }
        guard threadStarted.load(ordering: .acquiring) else {
            stopped.store(true, ordering: .releasing)
            return Self.clause(poolLost: poolLost, machineLost: nil, timeout: timeout, stacks: nil)
        }
        if !ended {
            let limit = max(now, budgetEnd) + StackCapture.answerBudget + StackCapture.symbolBudget + 2
            while !looked.load(ordering: .acquiring) && MonotonicClock.now() < limit {
                await MainQueueFriendlyWait.sleep(for: 0.002)  // cancelled or not: never a spin
            }
        }
        stopped.store(true, ordering: .releasing)
        return Self.clause(
            poolLost: poolLost, machineLost: machineLost, timeout: timeout, stacks: stacks.withLock { $0 })
    }

    /// The failure's clause (see `finish`); `machineLost` is nil when the watch had no thread.
    static func clause(poolLost: Seconds, machineLost: Seconds?, timeout: Seconds, stacks: StackSnapshot?) -> String {
        let bar = notable(timeout)
        guard let machineLost else {
            // No thread of its own: a stall and a held pool look alike; say what was measured.
            guard poolLost >= bar else { return "" }
            return "; meanwhile a control task started beside it ran \(Format.seconds(poolLost)) late "
                + "(the pool or the machine was held; the harness had no thread to tell which)"
        }
        var text = ""
        let held = poolLost - machineLost
        if held >= bar {
            text += "; meanwhile the cooperative pool ran no new task for \(Format.seconds(held)) of the wait "
                + "(a control task started beside the operation ran that late, beyond the "
                + "\(Format.seconds(machineLost)) a thread of the harness's own lost): its threads were held, by the "
                + "operation or by other code (a blocking wait in another test running beside this one?), so the "
                + "operation may not have had a thread"
            if let stacks { text += ". Where every thread was when the budget ran out:" + HangStacks.block(stacks) }
        }
        if machineLost >= bar {
            text += "; meanwhile the whole machine stalled \(Format.seconds(machineLost)) "
                + "(a thread of the harness's own was that late)"
        }
        return text
    }
}
