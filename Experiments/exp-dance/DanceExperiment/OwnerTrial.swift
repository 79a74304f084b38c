import LabHarness

/// What every dance variant measures around its one owner, so a body keeps only the lesson: its
/// reference counts (`probe`), its release (times from the `LifetimeTag` stored in it), and the
/// events `scope-end`, `deinit`, `grace-over`, `cycle-broken`. A body makes the owner with `tag()`,
/// `watch`es it, marks `endScope(of:)`, calls `settle` or `awaitRelease` after the closing brace,
/// and returns `record(...)`.
public final class OwnerTrial {
    public let context: VariantContext, label: String, parameters: DanceParameters
    public let probe = CaptureProbe()
    public var metrics = Metrics()
    let tracker = ReleaseTracker()
    private weak var owner: AnyObject?

    public init(_ context: VariantContext, owner label: String) {
        (self.context, self.label, parameters) = (context, label, context.parameters(DanceParameters.self))
    }

    /// The tag to store in the owner (`let lifetime: LifetimeTag`).
    public func tag() -> LifetimeTag { tracker.tag(label) }

    /// Tracks the owner (weakly) and takes its reference counts' baseline, read from the body's
    /// local as the later readings are (returning the owner from here adds a retain in -O builds).
    public func watch(_ owner: AnyObject) { tracker.track(owner, label); self.owner = owner; probe.begin(owner) }

    /// Marks the end of the owner's scope: call it with the scope's last use of the owner, which
    /// it keeps alive across the mark (so the release delay is never negative). The timeline's
    /// `scope-end` is the same instant as the release figure's.
    public func endScope(of owner: AnyObject) {
        context.event("scope-end", at: tracker.markScopeEnd(label))
        withExtendedLifetime(owner) {}
    }

    public var isAlive: Bool { tracker.isAlive(label) }
    public var releasedAt: Seconds? { tracker.releasedAt(label) }
    /// Whether the owner went within its grace period (the first `awaitRelease` decides).
    public var released: Bool? { metrics[DanceMetric.released].map { $0 == 1 } }
    /// Right after the scope's closing brace (`awaitRelease` calls it): did the owner outlive it?
    public func scopeClosed() {
        if metrics[DanceMetric.aliveAtScopeExit] == nil { metrics[DanceMetric.aliveAtScopeExit] = isAlive ? 1 : 0 }
    }

    /// Waits up to `--grace` from `due` (default now) for the release, with the main queue
    /// running; logs `deinit` at the tag's time. The first call gives `released`.
    @discardableResult
    public func awaitRelease(from due: Seconds? = nil) -> Bool {
        scopeClosed()
        let gone = MainQueueFriendlyWait.until(deadline: (due ?? MonotonicClock.now()) + parameters.grace) { !isAlive }
        if gone, let at = releasedAt, context.time(of: "deinit") == nil { context.event("deinit", at: at) }
        if released == nil {
            metrics[DanceMetric.released] = gone ? 1 : 0
            metrics[DanceMetric.graceS] = parameters.grace
            if gone, let delay = tracker.releaseDelay(label) { metrics[DanceMetric.releaseAfterScopeS] = delay }
        }
        return gone
    }

    /// Awaits the release; for a leak, logs `grace-over` and shows what held the owner: `cut`
    /// clears its stored closure, then the release is awaited again (`released_after_break`).
    public func settle<Owner: AnyObject>(breakingCycleWith cut: (Owner) -> Void) {
        guard !awaitRelease() else { return }
        context.event("grace-over")
        let brokenAt = MonotonicClock.now()
        if let leaked = owner as? Owner { cut(leaked) } else { return }  // the release may happen in `cut`
        context.event("cycle-broken", at: brokenAt)
        let gone = awaitRelease()
        metrics[DanceMetric.releasedAfterBreak] = gone ? 1 : 0
        if gone, let at = releasedAt { metrics[DanceMetric.releaseAfterBreakS] = at - brokenAt }
    }

    /// `completed` when the owner went at its scope's end, `leaked` when alive after its grace
    /// period, else `outlived-scope` (declared by no variant, so forbidden).
    public var outcome: Outcome {
        guard released == true else { return .leaked }
        return metrics[DanceMetric.aliveAtScopeExit] == 0 ? .completed : "outlived-scope"
    }

    /// The reference counts as the mechanism of the owner's fate, seen when they explain it: a
    /// leak by a strong hold (that clearing the closure let go), a release by the closure holding
    /// `expected` (nothing, or one weak reference) when created and once stored.
    public func heldMechanism(_ what: String, releasedHolding expected: RefCounts = .zero) -> Evidence {
        guard let held = probe.onceStored else { return .notSeen("\(what)'s reference counts were not read") }
        guard released == true else {
            // Where the body cleared the closure, the release that followed confirms what held the owner.
            let broke = metrics[DanceMetric.releasedAfterBreak].map { $0 == 1 }
            let cleared =
                metrics[DanceMetric.releaseAfterBreakS].map {
                    ", and clearing it released the \(label) \(Format.seconds($0)) later"
                } ?? ""
            return .when(
                held.strong > 0 && broke != false, "\(what) held \(held) once stored (reference counts)" + cleared,
                otherwise: "the \(label) stayed, but \(what) held \(held) once stored"
                    + (broke == false ? " and clearing it did not release it" : ""))
        }
        let created = probe.atCreation ?? expected
        return .when(
            held == expected && created == expected,
            "\(what) held \(held) when created and once stored (reference counts)",
            otherwise: "\(what) held \(created) when created and \(held) once stored, not \(expected)")
    }

    /// `released 14 µs after its scope ended`, `still alive 500 ms after its scope ended`.
    public var releaseSummary: String { DanceReport.aliveOrReleased(metrics) }

    /// The record of a variant whose claim is what its stored closure holds (`heldMechanism`).
    public func record(heldBy what: String, releasedHolding expected: RefCounts = .zero) -> VariantRecord {
        record(
            outcome, mechanism: heldMechanism(what, releasedHolding: expected), evidence: "\(label) \(releaseSummary)")
    }

    /// The variant's record, with the lifetime's, the probe's and the variant's own metrics.
    public func record(_ outcome: Outcome, mechanism: Evidence, evidence: String) -> VariantRecord {
        var all = metrics
        all.merge(probe.metrics)
        return VariantRecord(outcome: outcome, metrics: all, evidence: evidence, mechanism: mechanism)
    }
}
