import Foundation
import Synchronization

/// The same-moment control of an assertion's budget: how much of a wait the whole machine took.
///
/// A budget such as `within: 0.2` is an absolute limit, and a shared 2-core machine stalls a
/// whole process for 30 to 500 ms under load (measured for `StallWatch`). A release or a callback
/// due 20 ms into the wait then comes after the budget, and correct code would fail. While an
/// assertion waits, a thread of the harness's own asks to wake every `tick`; what it lost past
/// its ticks, the machine lost, and the wait goes on for that much longer (at most `most`), as a
/// `LifetimeTrial` extends its grace. A pass that needed the extra time says so in a note on
/// stdout, and a failure says how much it was given.
///
/// What it cannot tell apart: code that is late by itself (a timer due after the budget) during
/// a stall at least as long as its lateness passes. The note names the stall, so such a pass is
/// never silent.
final class StallAllowance: Sendable {
    /// Seconds between the control's wakes.
    static let tick: Seconds = 0.005
    /// The most a wait is extended for the machine: a stall longer than this is not waited out.
    static let most: Seconds = 5
    /// Lost time under this is not waited for: a few wakes' scheduling noise.
    static let floor: Seconds = 0.005

    private struct Clock {
        /// The control's last wake; `nil` until its first, so that a thread that never ran
        /// (none could be created) never reads as a stalled machine.
        var last: Seconds?
        var lost: Seconds = 0
    }

    private let clock = Mutex(Clock())
    private let stopped = Atomic<Bool>(false)

    /// Starts the control's thread (an instrument, left out of every thread count).
    init() {
        NamedThread.startInstrument("lab.stall-ctl", stackSize: 256 * 1024) { [self] in
            while !stopped.load(ordering: .acquiring) {
                let now = MonotonicClock.now()
                clock.withLock { c in
                    // One tick for the sleep, one for a wake's own scheduling.
                    if let last = c.last { c.lost += max(0, now - last - 2 * Self.tick) }
                    c.last = now
                }
                MonotonicClock.sleep(for: Self.tick)
            }
        }
    }

    /// What the machine has taken from the wait so far, at most `most`: the control's lost
    /// time, plus how far past its next wake it is now (a stall still going on).
    var lost: Seconds {
        let now = MonotonicClock.now()
        return clock.withLock { c in
            guard let last = c.last else { return 0 }
            return min(Self.most, c.lost + max(0, now - last - 2 * Self.tick))
        }
    }

    /// Ends the control's thread (it sees the flag within a tick).
    func stop() { stopped.store(true, ordering: .releasing) }

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
    /// until the control loses no more (`floor`) or has lost `most`.
    static func wait(budget: Seconds, _ wait: (Seconds) -> Bool) -> Outcome {
        let control = StallAllowance()
        defer { control.stop() }
        return extend(budget: budget, lost: { control.lost }, wait)
    }

    /// `wait(budget:_:)` for an async `wait`.
    static func wait(
        budget: Seconds, isolation: isolated (any Actor)? = #isolation, _ wait: (Seconds) async -> Bool
    ) async -> Outcome {
        let control = StallAllowance()
        defer { control.stop() }
        return await extend(budget: budget, lost: { control.lost }, wait)
    }

    /// `extend(budget:lost:_:)` for an async `wait`, with a control of the caller's own (`lost`).
    static func extend(
        budget: Seconds, lost: () -> Seconds, isolation: isolated (any Actor)? = #isolation,
        _ wait: (Seconds) async -> Bool
    ) async -> Outcome {
        if await wait(budget) { return Outcome(met: true, allowed: 0, neededAllowance: false, lost: lost()) }
        var allowed: Seconds = 0
        while let more = more(lost: lost(), allowed: allowed) {
            allowed += more
            if await wait(more) { return Outcome(met: true, allowed: allowed, neededAllowance: true, lost: lost()) }
        }
        return Outcome(met: false, allowed: allowed, neededAllowance: false, lost: lost())
    }

    /// The rule of both waits, with the control's reading given (`lost`), for testing it.
    static func extend(budget: Seconds, lost: () -> Seconds, _ wait: (Seconds) -> Bool) -> Outcome {
        if wait(budget) { return Outcome(met: true, allowed: 0, neededAllowance: false, lost: lost()) }
        var allowed: Seconds = 0
        while let more = more(lost: lost(), allowed: allowed) {
            allowed += more
            if wait(more) { return Outcome(met: true, allowed: allowed, neededAllowance: true, lost: lost()) }
        }
        return Outcome(met: false, allowed: allowed, neededAllowance: false, lost: lost())
    }

    /// The next extension: what the control lost beyond what was already added, when that is
    /// at least `floor` (capped so that the total stays within `most`).
    static func more(lost: Seconds, allowed: Seconds) -> Seconds? {
        let more = min(lost, most) - allowed
        return more >= floor ? more : nil
    }

    /// `; the wait was extended by 600 ms for a stall of the machine (…)`: the failure's clause
    /// when an allowance was given, empty otherwise.
    static func clause(_ allowed: Seconds) -> String {
        guard allowed > 0 else { return "" }
        return "; the wait was extended by \(Format.seconds(allowed)) for a stall of the machine "
            + "(a thread of the harness's own was that late)"
    }

    /// The note of a pass that came only in the added time.
    static func note(_ what: String, budget: Seconds, allowed: Seconds) -> String {
        "\(what), past its \(Format.seconds(budget)) budget; the machine stalled \(Format.seconds(allowed)) of the "
            + "wait (a thread of the harness's own was that late), so the wait was extended by that much and this "
            + "is a pass. A stall cannot tell a late timer from a held machine: if this recurs on a quiet machine, "
            + "look at it"
    }
}

extension AssertionCall {
    /// Says on stdout that a pass needed a stall's allowance (`path:line:column: note: …`), or
    /// through `note` when the caller asked for notes: such a pass is never silent.
    func noteAllowance(_ text: String) {
        if note != nil { return notePass(text) }
        print("\(site): note: \(message.isEmpty ? text : "\(text): \(message)")")
    }
}
