/// What `assertThreadPeak` measures while a block runs: the sampled thread-count timeline (for
/// charts and the `.total` count) and the threads that appeared, by identity (for `.added`).
/// Both watcher threads start before the baseline, so neither is counted.
public struct ThreadPeakMeasurement: Sendable {
    private let sampler: ThreadSampler
    private let watch: NewThreadWatch

    /// Starts measuring now.
    public init(interval: Seconds) {
        sampler = ThreadSampler(interval: interval)
        sampler.start()
        watch = NewThreadWatch(interval: interval)
        watch.start()
    }

    /// Stops both watchers; returns the timeline and the threads that appeared.
    public func finish() -> (timeline: ThreadTimeline, appeared: [NewThreadWatch.Appeared]) {
        let appeared = watch.stop()
        return (sampler.stop(), appeared)
    }
}
