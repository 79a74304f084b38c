import Dispatch
import LabHarness

/// Swift concurrency's cooperative pool, as wide as the cores: a task that blocks its thread keeps
/// that core's slot, while `await Task.sleep` gives the thread back and every task proceeds.
enum Cooperative {
    enum Waiting: Sendable { case blockThread, suspend }

    static func run(_ context: VariantContext, _ waiting: Waiting) -> VariantRecord {
        let p = context.parameters(PoolParameters.self)
        let count = p.cooperativeTasks, hold = p.cooperativeHold, blocks = Blocks(context),
            done = DispatchSemaphore(value: 0)
        for _ in 0..<count {
            Task.detached {
                blocks.begin()
                switch waiting {
                // Blocks the thread as a synchronous API would, from a task on purpose: the mistake measured.
                case .blockThread: blockThread(for: hold)
                case .suspend: try? await Task.sleep(for: .seconds(hold))
                }
                blocks.end()
                done.signal()
            }
        }
        // Blocking tasks run in waves of `cores`; allow every wave plus slack.
        let deadline = MonotonicClock.now() + Seconds(PoolParameters.cooperativeWaves) * hold + 5
        var finished = 0
        while finished < count, done.wait(timeout: .now() + max(0, deadline - MonotonicClock.now())) == .success {
            finished += 1
        }
        let wall = MonotonicClock.now() - blocks.origin, starts = blocks.starts
        let timeline = context.threads?.stop().since(blocks.origin)
        var m = Metrics()
        m.set([
            PoolMetric.tasks: Double(count), PoolMetric.holdS: hold, PoolMetric.cores: Double(p.cores),
            PoolMetric.blocksStarted: Double(starts.count), PoolMetric.finished: Double(finished),
            PoolMetric.runningMax: Double(blocks.maxRunning), PoolMetric.wallS: wall,
            PoolMetric.blocksLastStartS: starts.last, PoolMetric.threadsBefore: timeline.map { Double($0.first) },
            PoolMetric.threadsPeak: timeline.map { Double($0.peak) },
        ])
        return VariantRecord(
            outcome: finished == count ? .completed : .stalled, metrics: m, series: ["started": Blocks.series(starts)])
    }

    /// Holds the calling thread for `seconds` in a wait nobody ends, as a synchronous API would.
    /// A plain function, so a task can call it: Apple's Dispatch marks the wait itself `noasync`
    /// (an error in an async context in the Swift 6 language mode); the block is the same.
    static func blockThread(for seconds: Seconds) {
        _ = DispatchSemaphore(value: 0).wait(timeout: .now() + seconds)
    }
}
