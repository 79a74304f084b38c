import Foundation
import LabHarness

/// The measurement every timeout design shares: issue `requests` async requests with a
/// `timeout`, each racing its timeout, and measure how late the timeouts fired and what keeping
/// them cost.
///
/// Callers are detached tasks, issued one after another from the calling thread, as
/// `--caller async` does: no caller blocks a thread while it waits. Each caller takes its
/// deadline (`started + timeout`) when it starts, so issuing does not count as lateness;
/// lateness is the instant the design woke the request minus that deadline.
///
/// Threads: the threads a `NewThreadWatch` saw appear from just before the design started,
/// minus every thread a caller ran on, are what the design itself created. The callers' own machinery starts threads that never run a caller (on Linux
/// the first detached task brings up a dispatch overcommit worker and a spare pool worker
/// besides the one that runs it), so a few tasks are run first and their threads are part of
/// "before". Memory is the process's peak resident set, meaningful when the trial runs
/// in a process of its own (as a sweep point does).
public enum TimeoutTrial {
    /// What one trial measured.
    public struct Result: Sendable {
        public var metrics: [TimeoutMetric: Double]
        /// Per request: fire time − deadline in seconds (NaN if it completed or never ended).
        public var lateness: [Double]
        /// `false` if the budget ran out before every request ended.
        public var finished: Bool
        /// Kernel names of the threads counted in `threads.added` (empty names as `?`), for evidence.
        public var addedThreadNames: [String]
        /// Per request: the monotonic instant it was due (NaN if it never started), so a
        /// lateness can be set against what a same-moment control was held up.
        public var deadlines: [Double]
        /// Per request: the monotonic instant the design woke it (NaN if it did not time out).
        public var firedAt: [Double]
        /// Monotonic instant the first request was issued.
        public var issuedAt: Seconds
        /// The priority the design's own thread got (`nil`: the design has no thread of its own).
        public var threadPriority: RealtimePriority.Grant?
    }

    /// Runs a few detached tasks to completion, so the threads the concurrency runtime starts for
    /// any caller exist before the design starts (waits 5 s at most).
    private static func warmUpCallers() {
        let done = DispatchSemaphore(value: 0)
        let tasks = 2 * ProcessInfo.processInfo.activeProcessorCount
        for _ in 0..<tasks {
            Task.detached {
                await Task.yield()
                done.signal()
            }
        }
        for _ in 0..<tasks { _ = done.wait(timeout: .now() + 5) }
        MonotonicClock.sleep(for: 0.02)
    }

    /// One caller: starts request `i`, races it against its timeout, notes how it ended.
    private static func call(_ i: Int, keeper: any TimeoutDesign, timeout: Seconds, completeAfter: Seconds?,
                             log: TimeoutTrialLog) async {
        let started = MonotonicClock.now()
        log.markStarted(i, at: started)
        let outcome = await keeper.race(deadline: started + timeout, request: request(completingAfter: completeAfter))
        log.markDone(i, outcome: outcome)
    }

    /// A stand-in request that completes after `delay` seconds, or `nil` for one that never does.
    private static func request(completingAfter delay: Seconds?) -> (@Sendable () async -> Void)? {
        guard let delay else { return nil }
        return { try? await Task.sleep(for: .nanoseconds(Int64(delay * 1e9))) }
    }

    /// Runs one trial. `completeAfter(i)` gives the seconds after which request `i` completes
    /// by itself (`nil`: never, the default, so every request times out). Returns `nil` if the
    /// design could not start. Waits at most `budget` seconds for the requests.
    public static func run(_ design: TimeoutDesignName, requests: Int, timeout: Seconds,
                    completeAfter: @escaping @Sendable (Int) -> Seconds? = { _ in nil },
                    budget: Seconds? = nil) -> Result? {
        warmUpCallers()
        // Threads that appear from here on, listed every 100 ms (its own watcher thread is part
        // of the baseline); less every thread a caller ran on, they are the design's own.
        let watch = NewThreadWatch(interval: 0.1)
        watch.start()
        let cpuStart = CPUTime.process()
        guard let keeper = design.start() else {
            watch.stop()
            return nil
        }
        let log = TimeoutTrialLog(count: requests)

        let issueStart = MonotonicClock.now()
        for i in 0..<requests {
            let after = completeAfter(i)
            Task.detached { await call(i, keeper: keeper, timeout: timeout, completeAfter: after, log: log) }
        }

        // Wait for every request; nothing waits forever.
        let limit = MonotonicClock.now() + (budget ?? max(10, 4 * timeout + Double(requests) * 1e-4))
        while log.finished < requests, MonotonicClock.now() < limit {
            MonotonicClock.sleep(for: 0.005)
        }
        let appeared = watch.stop()
        let cpu = CPUTime.process() - cpuStart
        let finished = log.finished == requests
        let priority = keeper.threadPriority
        keeper.stop()

        let started = log.startedTimes, fired = log.firedTimes, woke = log.wokeTimes
        var lateness = [Double](repeating: .nan, count: requests)
        var timedOut = 0, completed = 0, early = 0
        for i in 0..<requests where !woke[i].isNaN {
            if fired[i].isNaN { completed += 1; continue }
            timedOut += 1
            lateness[i] = fired[i] - (started[i] + timeout)
            if lateness[i] < 0 { early += 1 }
        }
        var m: [TimeoutMetric: Double] = [
            .requests: Double(requests), .timedOut: Double(timedOut), .completed: Double(completed),
            .early: Double(early), .cpu: cpu,
        ]
        let callers = log.callerThreadIDs
        let added = appeared.filter { !callers.contains(Int($0.id)) }.sorted { $0.id < $1.id }
        m[.threadsAdded] = Double(added.count)
        if let summary = LatencySummary(lateness.filter { !$0.isNaN }) {
            m[.latenessP50] = summary.p50 * 1000
            m[.latenessP99] = summary.p99 * 1000
            m[.latenessMax] = summary.max * 1000
        }
        let lastStart = started.filter { !$0.isNaN }.max() ?? issueStart
        m[.issue] = lastStart - issueStart
        if finished, let lastWake = woke.max() {
            m[.wallPerTimeout] = (lastWake - issueStart) / timeout
            m[.drain] = max(0, lastWake - (lastStart + timeout))
        }
        m[.memoryPeak] = ProcessMemory.peakResidentMB()
        return Result(metrics: m, lateness: lateness, finished: finished,
                      addedThreadNames: added.map { $0.name.isEmpty ? "?" : $0.name },
                      deadlines: started.map { $0 + timeout }, firedAt: fired, issuedAt: issueStart,
                      threadPriority: priority)
    }
}
