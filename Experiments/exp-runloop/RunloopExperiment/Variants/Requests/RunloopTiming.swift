import Foundation
import LabHarness

/// Rough durations, for scheduling child trials (longest first), the progress line and budgets.
/// The only slow thing here is the global queue's pool when its threads are blocked: on Linux
/// it starts with about three workers and adds about one per second (exp-pool's global-flood).
enum RunloopTiming {
    /// Seconds for `items` blocking work items of `hold` seconds each to get through that pool.
    static func throttledPool(items: Int, hold: TimeInterval) -> TimeInterval {
        var t = 0.0, done = 0.0
        let step = 0.05
        while done < Double(items), t < 600 {
            done += (3 + t) * step / hold
            t += step
        }
        return t + hold
    }

    /// Expected duration of a request trial. Run loops on the pool behind callers that block
    /// it never start: a deadlock, declared after the deadlock window. Without such callers the
    /// run loops themselves queue on the pool (run-until-date's for timeout + guard each);
    /// placements with threads of their own wait only for blocked callers to get through.
    static func estimate(
        _ placement: Placement, caller: CallerKind, requests: Int, timeout: TimeInterval, guardSeconds: TimeInterval
    ) -> TimeInterval {
        let blocked = caller == .global || caller == .operationQueue
        if placement.runsOnPool {
            let hold = placement == .runUntilDate ? timeout + guardSeconds : timeout
            return blocked ? RunloopParameters.deadlockAfter * timeout : throttledPool(items: requests, hold: hold)
        }
        return blocked ? throttledPool(items: requests, hold: timeout) : timeout
    }
}
