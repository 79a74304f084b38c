import CLabSupport
import Foundation

/// Seconds, as a `Double`. The lab reports times in seconds (and milliseconds for lateness), so
/// one plain unit keeps arithmetic and JSON simple.
public typealias Seconds = Double

/// A monotonic clock that every part of the lab shares.
///
/// The shim reads a system-wide clock (Linux `CLOCK_MONOTONIC`, Darwin `CLOCK_MONOTONIC_RAW`),
/// so an instant taken in a child process can be compared with one taken in its parent.
/// Wall-clock time (`Date`) can jump; this cannot.
public enum MonotonicClock {
    /// Now, in seconds since an arbitrary fixed point (boot, on Linux).
    @inline(__always)
    public static func now() -> Seconds {
        clab_monotonic_now()
    }

    /// Sleeps the calling thread until the monotonic clock reaches `deadline`, ignoring signals
    /// that interrupt the sleep. Sleeping to an absolute deadline keeps periodic loops from
    /// drifting by the time each iteration took.
    public static func sleep(until deadline: Seconds) {
        HostPlatform.sleep(untilMonotonic: deadline)
    }

    /// Sleeps the calling thread for `duration` seconds (a no-op for zero or less).
    public static func sleep(for duration: Seconds) {
        guard duration > 0 else { return }
        HostPlatform.sleep(forSeconds: duration)
    }
}
