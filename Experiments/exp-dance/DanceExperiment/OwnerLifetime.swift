import LabHarness

/// One owner's life in a variant, measured with the harness's deallocation tracking: created
/// and tracked inside a scope, the scope's end marked, then "was it released, and how long after
/// its scope ended".
///
/// The owner carries a `LifetimeTag` from `tag()`, so its release time is the exact moment its
/// stored properties were destroyed, not the next poll. The scope's end is marked while the
/// owner is provably still referenced (`endScope(of:)` keeps it alive across the mark), so the
/// delay is never negative, even when the optimiser ends a lifetime at its last use.
public final class OwnerLifetime {
    public let label: String
    public let tracker = ReleaseTracker()
    public let log: DanceLog
    /// Whether the owner was still alive right after its scope closed, before any waiting.
    public private(set) var aliveAtScopeExit: Bool?
    /// The verdict of the first `waitForRelease`: released within its grace period or not.
    public private(set) var releasedWithinGrace: Bool?
    /// The grace period of that first wait.
    public private(set) var grace: Seconds?

    public init(label: String, log: DanceLog) {
        self.label = label
        self.log = log
    }

    /// The tag to store in the owner (`let lifetime: LifetimeTag`).
    public func tag() -> LifetimeTag { tracker.tag(label) }

    /// Starts tracking the owner through a weak reference (the tracker never keeps it alive).
    public func track(_ owner: AnyObject) { tracker.track(owner, label) }

    /// Marks the end of the owner's scope: call it with the scope's last use of the owner.
    public func endScope(of owner: AnyObject) {
        tracker.markScopeEnd(label)
        log.record("scope-end")
        withExtendedLifetime(owner) {}
    }

    /// Call right after the scope's closing brace: records whether the owner outlived it.
    public func scopeClosed() {
        aliveAtScopeExit = tracker.isAlive(label)
    }

    /// Waits up to `grace` seconds for the release, letting the main queue run meanwhile; on
    /// release, adds the `deinit` event at the tag's time. True when released. The first call
    /// gives the variant's verdict (a leak is an owner still alive after its grace period).
    /// `from` is when the release was due (now, by default; the delayed block's due time for an
    /// owner that a pending block keeps alive on purpose).
    @discardableResult
    public func waitForRelease(within grace: Seconds, from due: Seconds = MonotonicClock.now()) -> Bool {
        let released = MainQueueFriendlyWait.until(deadline: due + grace) { !tracker.isAlive(label) }
        if released, let at = tracker.releasedAt(label), !log.contains("deinit") {
            log.record("deinit", at: at)
        }
        if releasedWithinGrace == nil {
            releasedWithinGrace = released
            self.grace = grace
        }
        return released
    }

    public var isAlive: Bool { tracker.isAlive(label) }

    /// Seconds from the scope's end to the release, once released.
    public var releaseAfterScope: Seconds? { tracker.releaseDelay(label) }

    /// `released` (0/1, within the grace period), `grace_s`, `alive_at_scope_exit` (0/1) and,
    /// when released in time, `release_after_scope_s`.
    public var metrics: Metrics {
        var metrics = Metrics()
        if let releasedWithinGrace {
            metrics[DanceMetric.released] = releasedWithinGrace ? 1 : 0
            if releasedWithinGrace, let delay = releaseAfterScope { metrics[DanceMetric.releaseAfterScopeS] = delay }
        }
        if let grace { metrics[DanceMetric.graceS] = grace }
        if let aliveAtScopeExit { metrics[DanceMetric.aliveAtScopeExit] = aliveAtScopeExit ? 1 : 0 }
        return metrics
    }
}
