import Foundation
import LabHarness

/// The floor under every timeout design's lateness: a thread beside the trial that does nothing
/// but sleep until an instant and note how late it woke, every `interval`.
///
/// No user-space design wakes a request sooner than the scheduler wakes a thread. This one runs
/// at the priority class of the design's own thread (real-time when that thread asked for it and
/// was granted it, normal otherwise), on the same machine, at the same moment, so the callers
/// whose resumptions keep two cores busy hold it up as they hold up the design. Its p99 over the
/// window in which the requests fall due is the floor; what a design's p99 lies above it is what
/// the design itself adds.
///
/// It is the harness's `StallWatch`, set differently from the trial's own control: it wakes ten
/// times as often, keeps every wake-up (the control keeps only those more than a millisecond
/// late, to subtract stalls), and asks for the design thread's own real-time priority, not one
/// above it.
enum WakeFloor {
    /// How often the thread asks to wake: often enough for a few dozen samples in the 20-40 ms
    /// in which 10,000 requests issued from one thread fall due, rarely enough (2,000 wake-ups
    /// a second, a few microseconds each) to cost the trial under 1 % of a core.
    static let interval: TimeInterval = 0.0005

    /// Starts the floor's thread and returns once it runs; with `realtime` it first asks for
    /// the priority a design's run-loop thread asks for (`RealtimePriority.requestedPriority`).
    static func start(realtime: Bool) -> StallWatch {
        StallWatch(
            interval: interval, realtime: realtime, realtimePriority: RealtimePriority.requestedPriority,
            keepsEveryWakeUp: true, threadName: "rl.wake-floor")
    }
}
