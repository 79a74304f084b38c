import Dispatch
import LabHarness

/// Swift concurrency's cooperative pool: as wide as the cores, and it never grows.
///
/// A task that blocks its thread (a semaphore, `sleep`, a synchronous API) keeps that core's
/// slot until it returns, so at most one blocking task per core runs and every other task waits.
/// `await Task.sleep` suspends instead: the thread goes back to the pool and every task proceeds.
enum Cooperative {
    enum Waiting: Sendable { case blockThread, suspend }

    static func run(_ context: VariantContext, _ waiting: Waiting) -> VariantRecord {
        let p = PoolParameters(context.options)
        let count = p.cooperativeTasks
        let hold = p.cooperativeHold
        let sampler = ThreadSampler(interval: 0.01)
        sampler.start()
        let ledger = BlockLedger(progress: context.progress)
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<count {
            Task.detached {
                ledger.begin()
                switch waiting {
                case .blockThread: blockThisThread(for: hold)
                case .suspend: try? await Task.sleep(for: .seconds(hold))
                }
                ledger.end()
                done.signal()
            }
        }
        // Blocking tasks run in waves of `cores`; allow every wave plus slack.
        let deadline = MonotonicClock.now() + Seconds(count) * hold + 5
        var finished = 0
        while finished < count, done.wait(timeout: .now() + max(0, deadline - MonotonicClock.now())) == .success {
            finished += 1
        }
        let wall = MonotonicClock.now() - ledger.origin
        let timeline = sampler.stop()

        var metrics = Metrics()
        metrics[PoolMetric.tasks] = Double(count)
        metrics[PoolMetric.holdS] = hold
        metrics[PoolMetric.cores] = Double(p.cores)
        metrics[PoolMetric.blocksStarted] = Double(ledger.started)
        metrics[PoolMetric.finished] = Double(finished)
        metrics[PoolMetric.runningMax] = Double(ledger.maxRunning)
        if let last = ledger.lastStart { metrics[PoolMetric.blocksLastStartS] = last }
        metrics[PoolMetric.threadsBefore] = Double(timeline.first)
        metrics[PoolMetric.threadsPeak] = Double(timeline.peak)
        metrics[PoolMetric.wallS] = wall
        return VariantRecord(outcome: finished == count ? .completed : .stalled, metrics: metrics,
                             series: [SeriesKey.threads: timeline.series(), "started": ledger.startedSeries()])
    }

    /// Blocks the calling thread as a synchronous API would: a semaphore nobody signals, with a
    /// timeout. Called from a task on purpose: that is the mistake this variant measures.
    private static func blockThisThread(for seconds: Seconds) {
        let nobody = DispatchSemaphore(value: 0)
        _ = nobody.wait(timeout: .now() + seconds)
    }
}
