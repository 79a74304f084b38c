#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Seconds, as a `Double`. The lab reports times in seconds (and milliseconds for lateness), so
/// one plain unit keeps arithmetic and JSON simple.
public typealias Seconds = Double

/// A monotonic clock that every part of the lab shares.
///
/// `CLOCK_MONOTONIC` is system-wide on Linux and Darwin, so an instant taken in a child process
/// can be compared with one taken in its parent. Wall-clock time (`Date`) can jump; this cannot.
public enum MonotonicClock {
    /// Now, in seconds since an arbitrary fixed point (boot, on Linux).
    @inline(__always)
    public static func now() -> Seconds {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Seconds(ts.tv_sec) + Seconds(ts.tv_nsec) / 1_000_000_000
    }

    /// Sleeps the calling thread until the monotonic clock reaches `deadline`, ignoring signals
    /// that interrupt the sleep. Sleeping to an absolute deadline keeps periodic loops from
    /// drifting by the time each iteration took.
    public static func sleep(until deadline: Seconds) {
        #if canImport(Glibc)
        var ts = timespec()
        ts.tv_sec = Int(deadline.rounded(.down))
        ts.tv_nsec = Int((deadline - deadline.rounded(.down)) * 1_000_000_000)
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
        #else
        let remaining = deadline - now()
        if remaining > 0 { sleep(for: remaining) }
        #endif
    }

    /// Sleeps the calling thread for `duration` seconds (a no-op for zero or less).
    public static func sleep(for duration: Seconds) {
        guard duration > 0 else { return }
        #if canImport(Glibc)
        sleep(until: now() + duration)
        #else
        var ts = timespec(tv_sec: Int(duration), tv_nsec: Int((duration - duration.rounded(.down)) * 1e9))
        var rest = timespec()
        while nanosleep(&ts, &rest) == -1 && errno == EINTR { ts = rest }
        #endif
    }
}
