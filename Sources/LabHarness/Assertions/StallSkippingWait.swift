import Dispatch

/// A watch's wait for its deadline that does not count time the process did not run: a watch
/// (a hang watch, `assertCompletes`'s grace before it ends the process) sleeps in slices, and a
/// slice that came back late by more than `stallFloor` (a stall of the machine, a debugger's
/// pause, a laptop's sleep where the clock counts it) moves the deadline on by its lateness, up
/// to `maxSkip` in all: a hang that starves the watch's own thread still ends.
enum StallSkippingWait {
    /// Seconds the watch sleeps between two looks at the clock.
    static let slice: Seconds = 0.1
    /// Lateness of a slice beyond this is time the watch's thread did not run.
    static let stallFloor: Seconds = 0.05

    /// Waits on `wake` until `deadline`, moving it on as above (`looked` is told the deadline
    /// and the time after each slice).
    /// `start`: when the deadline was set (default now), so that a watch's thread that began
    /// late skips that too. Returns `nil` when `wake` was signalled, else the seconds skipped.
    static func wait(
        on wake: DispatchSemaphore, from start: Seconds? = nil, until deadline: Seconds, maxSkip: Seconds,
        looked: (_ deadline: Seconds, _ now: Seconds) -> Void = { _, _ in }
    ) -> Seconds? {
        var deadline = deadline, skipped: Seconds = 0, last = start ?? MonotonicClock.now()
        while last < deadline {
            let napEnd = last + min(deadline - last, slice)
            if wake.wait(timeout: WaitTimeLimit.fromNow(max(0, napEnd - MonotonicClock.now()))) == .success {
                return nil
            }
            let now = MonotonicClock.now()
            let late = min(now - napEnd, maxSkip - skipped)
            if late > stallFloor { (deadline, skipped) = (deadline + late, skipped + late) }
            looked(deadline, now)
            last = now
        }
        return skipped
    }
}
