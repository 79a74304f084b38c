/// What `assertThreadPeak` measures while a block runs: the sampled thread-count timeline (for
/// charts and the `.total` count) and the threads that appeared, by identity (for `.added`).
/// Both watcher threads start before the baseline, so neither is counted.
public struct ThreadPeakMeasurement: Sendable {
    private let sampler: ThreadSampler
    private let watch: NewThreadWatch

    /// Starts measuring now. With `stacksAt`, the stacks of the new threads are taken when that
    /// many have appeared (`stacksText`).
    public init(interval: Seconds, stacksAt: Int? = nil) {
        sampler = ThreadSampler(interval: interval)
        sampler.start()
        watch = NewThreadWatch(interval: interval, stacksAt: stacksAt)
        watch.start()
    }

    /// The new threads grouped by where they were when the limit was reached, for a failure.
    public func stacksText() -> String { watch.stacksText() }

    /// Stops both watchers; returns the timeline and the threads that appeared.
    public func finish() -> (timeline: ThreadTimeline, appeared: [NewThreadWatch.Appeared]) {
        let appeared = watch.stop()
        return (sampler.stop(), appeared)
    }
}
