extension ThreadTimeline {
    /// The samples from monotonic instant `origin` on, with `t` counted from it: the timeline
    /// of a trial's work when the sampler started earlier (the harness starts it before the body).
    public func since(_ origin: Seconds) -> ThreadTimeline {
        let shift = origin - startedAt
        let kept = samples.filter { $0.t >= shift }.map { ThreadSample(t: $0.t - shift, count: $0.count) }
        return ThreadTimeline(interval: interval, startedAt: origin, samples: kept, samplerCPU: samplerCPU)
    }
}
