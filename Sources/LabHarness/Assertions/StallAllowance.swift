import Foundation
import Synchronization

/// The same-moment control of an assertion's budget: how much of a wait the whole machine took.
///
/// A budget such as `within: 0.2` is an absolute limit, and a shared 2-core machine stalls a
/// whole process for 30 to 500 ms under load (measured for `StallWatch`). A release or a callback
/// due 20 ms into the wait then comes after the budget, and correct code would fail. While an
/// assertion waits, a thread of the harness's own asks to wake every `tick`; what it lost past
/// its ticks, the machine lost, and the wait goes on for that much longer (at most `most`, and
/// never into the last `HarnessAssertions.hangMargin` before the test's hang watch fires), as a
/// `LifetimeTrial` extends its grace. A pass that a stall made late says so in a note on stdout,
/// and a failure says how much it was given.
///
/// What it cannot tell apart: code that is late by itself (a timer due after the budget) during
/// a stall at least as long as its lateness passes, and code that starves the machine itself
/// (hundreds of runnable threads) makes the control late too. The note names the stall, so such
/// a pass is never silent.
final class StallAllowance: Sendable {
    /// Seconds between the control's wakes.
    static let tick: Seconds = 0.005
    /// The most a wait is extended for the machine: a stall longer than this is not waited out
    /// (a `LifetimeTrial`'s grace too).
    static let most: Seconds = 5
    /// Lost time under this is not waited for: a few wakes' scheduling noise.
    static let floor: Seconds = 0.005
    /// How long the control's thread may take to start before the wait goes on without it.
    static let startBudget: Seconds = 0.5

    private struct Clock {
        /// When the control was started, and its last wake (`nil` until its first).
        var started: Seconds
        var last: Seconds?
        var lost: Seconds = 0
    }

    /// What the control's thread and the waiting thread share.
    private final class State: Sendable {
        let clock: Mutex<Clock>
        let stopped = Atomic<Bool>(false)
        init() { clock = Mutex(Clock(started: MonotonicClock.now())) }
    }

    private let state = State()
    /// Whether the thread runs (false at a thread limit, or not started within `startBudget`):
    /// a control that never ran measures nothing, and never reads as a stalled machine.
    private let running: Bool

    /// Starts the control's thread, an instrument of the harness (`InstrumentThreads`, left out of
    /// a count of the threads a block added), and returns once it has enrolled and runs.
    init() {
        let state = self.state
        running = NamedThread.startInstrumentAndAwait(
            "lab.stall-ctl", stackSize: 256 * 1024, budget: Self.startBudget
        ) { start in
            guard start.signalReady() else { return }
            while !state.stopped.load(ordering: .acquiring) {
                // A stall before the first wake counts from the start: the thread was due then.
                // The clock is read under the lock, so that `begin()` never sees it go back.
                state.clock.withLock { c in
                    let now = MonotonicClock.now()
                    c.lost += Self.overdue(now, since: c.last ?? c.started)
                    c.last = now
                }
                MonotonicClock.sleep(for: Self.tick)
            }
        }
    }

    /// Seconds past the next wake due after `last` (one tick for the sleep, one for a wake's own
    /// scheduling).
    private static func overdue(_ now: Seconds, since last: Seconds) -> Seconds {
        max(0, now - last - 2 * tick)
    }

    /// What the machine has taken from the wait so far, at most `most`: the control's lost
    /// time, plus how far past its next wake it is now (a stall still going on).
    var lost: Seconds {
        guard running else { return 0 }
        let now = MonotonicClock.now()
        return state.clock.withLock { c in min(Self.most, c.lost + Self.overdue(now, since: c.last ?? c.started)) }
    }

    /// What is left of `budget`, begun at `entered`, now that the control runs: its start was
    /// part of the wait (and, when late, part of what it lost). A control that never ran measured
    /// nothing: the whole budget, from now.
    func left(of budget: Seconds, from entered: Seconds) -> Seconds {
        running ? max(0, entered + budget - MonotonicClock.now()) : budget
    }

    /// Counts from now only: for a measurement that starts after the control (sync
    /// `assertCompletes` times its block from here, so the control's own start is not in it).
    func begin() {
        let now = MonotonicClock.now()
        state.clock.withLock { c in (c.started, c.last, c.lost) = (now, c.last.map { _ in now }, 0) }
    }

    /// Ends the control's thread (it sees the flag within a tick).
    func stop() { state.stopped.store(true, ordering: .releasing) }

    /// How a wait with an allowance ended.
    struct Outcome: Sendable, Equatable {
        /// Whether what it waited for came.
        var met: Bool
        /// The time added for the machine's stalls (0 when none was).
        var allowed: Seconds
        /// Whether it came only in the added time: a pass the machine's stall explains.
        var neededAllowance: Bool
        /// What the control had lost when the wait ended (at most `most`). A wait that polls
        /// may see at its deadline what came just after it (in a stall, say): a caller that
        /// measured the time itself judges with this, not with `neededAllowance`.
        var lost: Seconds = 0
    }

    /// Waits with `wait` (which waits up to the seconds it is given and says whether what it
    /// waits for came) for `budget`, then for as long again as the control lost meanwhile,
    /// until the control loses no more (`floor`) or has lost `most`. What has already come is
    /// seen without a control (`wait(0)`), so a pass at once starts no thread. The budget runs
    /// from the call: the control's start is in it (and, when the control's thread was late to
    /// start, in what it lost).
    static func wait(budget: Seconds, _ wait: (Seconds) -> Bool) -> Outcome {
        if wait(0) { return Outcome(met: true, allowed: 0, neededAllowance: false) }
        let entered = MonotonicClock.now()
        let control = StallAllowance()
        defer { control.stop() }
        let left = control.left(of: budget, from: entered)
        return extend(budget: left, lost: { control.lost }, until: hangWatchCeiling, wait)
    }

    /// `wait(budget:_:)` for an async `wait`.
    static func wait(
        budget: Seconds, isolation: isolated (any Actor)? = #isolation, _ wait: (Seconds) async -> Bool
    ) async -> Outcome {
        if await wait(0) { return Outcome(met: true, allowed: 0, neededAllowance: false) }
        let entered = MonotonicClock.now()
        let control = StallAllowance()
        defer { control.stop() }
        return await extend(
            budget: control.left(of: budget, from: entered), lost: { control.lost }, until: hangWatchCeiling, wait)
    }

    /// The instant an extension must not pass: `HarnessAssertions.hangMargin` before the test's
    /// hang watch fires, so that a leak fails as a leak, not as a hang of the harness's wait.
    /// Read before each extension: a stall moves the watch on too.
    static func hangWatchCeiling() -> Seconds? {
        HangWatch.deadlineOfThisTest.map { $0 - HarnessAssertions.hangMargin }
    }

    /// The rule of both waits, with the control's reading given (`lost`), for testing it.
    static func extend(
        budget: Seconds, lost: () -> Seconds, until ceiling: () -> Seconds? = { nil }, _ wait: (Seconds) -> Bool
    ) -> Outcome {
        if wait(budget) { return Outcome(met: true, allowed: 0, neededAllowance: false, lost: lost()) }
        var allowed: Seconds = 0
        while let more = more(lost: lost(), allowed: allowed, ceiling: ceiling()) {
            allowed += more
            if wait(more) { return Outcome(met: true, allowed: allowed, neededAllowance: true, lost: lost()) }
        }
        return Outcome(met: false, allowed: allowed, neededAllowance: false, lost: lost())
    }

    /// `extend(budget:lost:until:_:)` for an async `wait`, with a control of the caller's own.
    static func extend(
        budget: Seconds, lost: () -> Seconds, until ceiling: () -> Seconds? = { nil },
        isolation: isolated (any Actor)? = #isolation, _ wait: (Seconds) async -> Bool
    ) async -> Outcome {
        if await wait(budget) { return Outcome(met: true, allowed: 0, neededAllowance: false, lost: lost()) }
        var allowed: Seconds = 0
        while let more = more(lost: lost(), allowed: allowed, ceiling: ceiling()) {
            allowed += more
            if await wait(more) { return Outcome(met: true, allowed: allowed, neededAllowance: true, lost: lost()) }
        }
        return Outcome(met: false, allowed: allowed, neededAllowance: false, lost: lost())
    }

    /// The next extension: what the control lost beyond what was already added, when that is
    /// at least `floor` (capped so that the total stays within `most`, and the wait ends by
    /// `ceiling`).
    static func more(lost: Seconds, allowed: Seconds, ceiling: Seconds? = nil) -> Seconds? {
        var more = min(lost, most) - allowed
        if let ceiling { more = min(more, ceiling - MonotonicClock.now()) }
        return more >= floor ? more : nil
    }

    /// `; the wait was extended by 600 ms for a stall of the machine (…)`: the failure's clause
    /// when an allowance was given, empty otherwise.
    static func clause(_ allowed: Seconds) -> String {
        guard allowed >= floor else { return "" }
        return "; the wait was extended by \(Format.seconds(allowed)) for a stall of the machine "
            + "(a thread of the harness's own was that late)"
    }

    /// `; 600 ms of it was a stall of the machine (…), which the budget did not count`: the
    /// clause of a failure judged on its time less the machine's (`assertCompletes`).
    static func discounted(_ lost: Seconds) -> String {
        guard lost >= floor else { return "" }
        return "; \(Format.seconds(lost)) of it was a stall of the machine (a thread of the harness's own was that "
            + "late), which the budget did not count"
    }

    /// The note of a pass past its budget that a stall of `lost` explains; `nil` when no stall
    /// was measured (a poll that saw it just after the deadline, which says nothing of a stall).
    static func note(_ what: String, budget: Seconds, lost: Seconds) -> String? {
        guard lost >= floor else { return nil }
        return "\(what), past its \(Format.seconds(budget)) budget; the machine stalled \(Format.seconds(lost)) of the "
            + "wait (a thread of the harness's own was that late), which the budget does not count: a pass. A stall "
            + "cannot tell a late timer from a held machine: if this recurs on a quiet machine, look at it"
    }
}

extension AssertionCall {
    /// Says on stdout that a pass needed a stall's allowance (`path:line:column: note: …`), or
    /// through `note` when the caller asked for notes: such a pass is never silent. Nothing for
    /// a `nil` text (no stall measured).
    func noteAllowance(_ text: String?) {
        guard let text else { return }
        if note != nil { return notePass(text) }
        print("\(site): note: \(message.isEmpty ? text : "\(text): \(message)")")
    }
}
