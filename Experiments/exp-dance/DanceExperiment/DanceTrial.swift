import LabHarness

/// What every dance variant measures with: a log of timestamped events, its owner's lifetime
/// (tracker and tag) and a capture probe, plus the variant's options. Its `record` puts them
/// together into the variant's result.
public final class DanceTrial {
    public let context: VariantContext
    public let log: DanceLog
    public let lifetime: OwnerLifetime
    public let probe = CaptureProbe()

    public init(_ context: VariantContext, owner label: String) {
        self.context = context
        log = DanceLog(origin: context.startedAt)
        lifetime = OwnerLifetime(label: label, log: log)
    }

    /// `--delay`: the seed's two seconds before `completion1`.
    public var delay: Seconds { DanceParameters(context.options).delay }
    /// `--grace`: how long an owner may outlive its scope before it counts as leaked.
    public var grace: Seconds { DanceParameters(context.options).grace }

    /// `completed` when the owner was released within its grace period, `leaked` when the
    /// tracker still saw it alive at the end of it.
    public var releaseOutcome: Outcome {
        lifetime.releasedWithinGrace == true ? .completed : .leaked
    }

    /// One line on the release, with the figures: "released 14 µs after its scope ended".
    public var releaseSummary: String {
        guard let released = lifetime.releasedWithinGrace else { return "release not measured" }
        if released {
            return "released \(lifetime.releaseAfterScope.map(Format.seconds) ?? "?") after its scope ended"
        }
        return "still alive \(Format.seconds(lifetime.grace ?? grace)) after its scope ended (tracker checked after the grace period)"
    }

    /// The variant's result: the lifetime and capture metrics plus `extra`, and the events.
    public func record(_ outcome: Outcome, extra: Metrics = Metrics(), evidence: String) -> VariantRecord {
        var metrics = lifetime.metrics
        metrics.merge(probe.metrics)
        metrics.merge(extra)
        return VariantRecord(outcome: outcome, metrics: metrics, evidence: evidence, events: log.events)
    }
}

extension DanceTrial {
    /// After the owner's scope: waits out the grace period and, if the owner outlived it (a
    /// leak), records `grace-over` and breaks the cycle with `cut`. Returns the break's metrics,
    /// empty when the owner was released in time.
    public func settle(breakingCycleWith cut: () -> Bool) -> Metrics {
        lifetime.scopeClosed()
        lifetime.waitForRelease(within: grace)
        guard lifetime.releasedWithinGrace == false else { return Metrics() }
        log.record("grace-over")
        return breakCycle(cut)
    }

    /// After a measured leak, shows that the stored closure was the only thing holding the
    /// owner: `cut` clears it (through a weak reference, returning false when the owner is
    /// already gone), then the release is awaited. The verdict stays the leak measured before;
    /// this adds `released_after_break` (0/1) and `release_after_break_s`.
    public func breakCycle(_ cut: () -> Bool) -> Metrics {
        var metrics = Metrics()
        let brokenAt = MonotonicClock.now()
        guard cut() else { return metrics }   // the release may happen inside `cut`
        log.record("cycle-broken", at: brokenAt)
        let released = lifetime.waitForRelease(within: grace)
        metrics[DanceMetric.releasedAfterBreak] = released ? 1 : 0
        if released, let at = lifetime.tracker.releasedAt(lifetime.label) {
            metrics[DanceMetric.releaseAfterBreakS] = at - brokenAt
        }
        return metrics
    }

    /// "clearing the stored closure released it 9 µs later", from `breakCycle`'s metrics.
    public static func breakSummary(_ metrics: Metrics, what: String) -> String {
        guard let released = metrics[DanceMetric.releasedAfterBreak] else { return "" }
        if released == 1 {
            return "; clearing \(what) then released it \(metrics[DanceMetric.releaseAfterBreakS].map(Format.seconds) ?? "?") later"
        }
        return "; it stayed alive even after \(what) was cleared"
    }
}
