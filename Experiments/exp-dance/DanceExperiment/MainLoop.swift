import Foundation
import LabHarness

/// Waiting that lets the main queue run.
///
/// The seed schedules its delayed block with `dispatch_after` on the main queue, and the
/// variants here do the same. On the main thread of a child trial nothing drains that queue
/// unless the thread runs its run loop (on Linux the main run loop carries the main queue's
/// port), so every wait in a variant goes through `MainLoop.wait`: it runs the run loop in short
/// slices and checks its condition between them. Off the main thread it can only sleep, and
/// main-queue work waits for whoever owns the main thread.
public enum MainLoop {
    /// Runs the current thread's run loop (or sleeps, off the main thread) until `done()` is
    /// true or `deadline` (monotonic) passes; true when `done()` was met.
    @discardableResult
    public static func wait(until deadline: Seconds, slice: Seconds = 0.002, for done: () -> Bool) -> Bool {
        while !done() {
            let now = MonotonicClock.now()
            if now >= deadline { return false }
            let step = min(slice, deadline - now)
            if Thread.isMainThread {
                _ = RunLoop.current.run(mode: .default, before: Date(timeIntervalSinceNow: step))
            } else {
                MonotonicClock.sleep(for: step)
            }
        }
        return true
    }
}
