import Foundation
import LabHarness

/// `task-sleep`: no run loop and no thread of its own. Each request races a child task that
/// sleeps until the deadline (`Task.sleep`), in a task group; the first to finish decides and
/// the other is cancelled. The sleeping is the concurrency runtime's: its global executor
/// hands delayed jobs to libdispatch's timers.
public struct TaskSleepTimeouts: TimeoutDesign {
    /// Tolerance handed to `Task.sleep`; `nil` lets the runtime choose.
    public var tolerance: Duration?
    public init(tolerance: Duration? = .zero) { self.tolerance = tolerance }

    public func race(deadline: TimeInterval, request: (@Sendable () async -> Void)?) async -> RaceOutcome {
        let tolerance = self.tolerance
        return await withTaskGroup(of: RaceOutcome?.self) { group in
            group.addTask {
                // Sleeping can end a little before the monotonic deadline (another clock, a
                // rounding): sleep again for the rest, so no request is woken early.
                while true {
                    let remaining = deadline - MonotonicClock.now()
                    if remaining <= 0 { return .timedOut(firedAt: MonotonicClock.now()) }
                    // Cancelled: the request won.
                    do {
                        try await Task.sleep(
                            for: .nanoseconds(Int64((remaining * 1e9).rounded(.up))), tolerance: tolerance,
                            clock: .suspending)
                    } catch { return nil }
                }
            }
            if let request {
                group.addTask {
                    await request(); return Task.isCancelled ? nil : .completed
                }
            }
            var outcome: RaceOutcome = .completed
            for await result in group { if let result { outcome = result; break } }
            group.cancelAll()
            return outcome
        }
    }
}
