/// One object's lifetime in a variant, so the variant's body keeps only its lesson: the object
/// (the owner) calls `ownerDeinit` from its `deinit`, the body `watch`es it, marks
/// `endScope(of:)` with the scope's last use of it, and after the closing brace calls
/// `awaitRelease` (or `settle`, for an owner that may leak). The trial logs the events
/// `scope-end`, `deinit`, `grace-over` and `cycle-broken`, records its metrics (the keys below)
/// and grades the owner's fate (`outcome`).
///
/// The clock, the main-queue-friendly wait and the `ReleaseTracker` stay inside: every instant
/// here (`now()`, `releasedAt`, the events) is on one monotonic clock, and every wait turns the
/// main run loop, so a delayed main-queue block that holds the owner runs while the trial waits.
open class LifetimeTrial {
    public let context: VariantContext, label: String
    /// How long the owner may outlive its scope before it counts as leaked.
    public let grace: Double
    /// The lifetime's metrics and the variant's own, for its record.
    public var metrics = Metrics()
    private let tracker = ReleaseTracker()
    private weak var owner: AnyObject?

    public init(_ context: VariantContext, owner label: String, grace: Double) {
        (self.context, self.label, self.grace) = (context, label, grace)
    }

    /// What the owner calls from its `deinit` (`deinit { onDeinit() }`), as the article's
    /// `dealloc` logs "deinit": the release is recorded at that instant, exactly, where the
    /// owner's weak reference alone would show it only at the next look.
    public var ownerDeinit: @Sendable () -> Void { { [tracker, label] in tracker.markReleased(label) } }

    /// Tracks the owner, weakly.
    open func watch(_ owner: AnyObject) {
        tracker.track(owner, label)
        self.owner = owner
    }

    /// Marks the end of the owner's scope: call it with the scope's last use of the owner, which
    /// it keeps alive across the mark (so the release delay is never negative). The timeline's
    /// `scope-end` is the same instant as the release figure's.
    public func endScope(of owner: AnyObject) {
        context.event("scope-end", at: tracker.markScopeEnd(label))
        withExtendedLifetime(owner) {}
    }

    public var isAlive: Bool { tracker.isAlive(label) }
    /// The instant the owner went (on `now()`'s clock), when it has.
    public var releasedAt: Double? { tracker.releasedAt(label) }
    /// Whether the owner went within its grace period (the first `awaitRelease` decides).
    public var released: Bool? { metrics[Self.releasedKey].map { $0 == 1 } }
    /// Whether the owner outlived its scope's closing brace (`scopeClosed`).
    public var aliveAtScopeExit: Bool? { metrics[Self.aliveAtScopeExitKey].map { $0 == 1 } }
    /// Whether clearing what held a leaked owner released it (`settle`).
    public var releasedAfterBreak: Bool? { metrics[Self.releasedAfterBreakKey].map { $0 == 1 } }

    /// Right after the scope's closing brace (`awaitRelease` calls it): did the owner outlive it?
    public func scopeClosed() {
        if aliveAtScopeExit == nil { metrics[Self.aliveAtScopeExitKey] = isAlive ? 1 : 0 }
    }

    /// Waits up to `grace` from `due` (default now) for the release, with the main queue
    /// running; logs `deinit` at the tag's time. The first call gives `released`. What a
    /// same-moment control lost to the machine meanwhile (with `.stallWatch`) is waited again,
    /// up to `stallAllowance`: a stall that held the main queue through the grace (a delayed
    /// block due in it) must not turn a release into a leak.
    @discardableResult
    public func awaitRelease(from due: Double? = nil) -> Bool {
        scopeClosed()
        let entry = now(), start = due ?? entry
        var deadline = start + grace, lost: Seconds = 0
        var gone = runMainQueue(until: deadline) { !isAlive }
        while !gone {
            let stall = min(context.machineDelay(from: min(start, entry), to: now()), Self.stallAllowance)
            guard stall >= lost + 0.005 else { break }
            (deadline, lost) = (deadline + stall - lost, stall)
            gone = runMainQueue(until: deadline) { !isAlive }
        }
        if gone, let at = releasedAt, context.time(of: "deinit") == nil { context.event("deinit", at: at) }
        if released == nil {
            metrics[Self.releasedKey] = gone ? 1 : 0
            metrics[Self.graceKey] = grace
            if lost > 0 { metrics[Self.graceStallKey] = lost }
            if gone, let delay = tracker.releaseDelay(label) { metrics[Self.releaseAfterScopeKey] = delay }
        }
        return gone
    }

    /// Awaits the release; for a leak, logs `grace-over` and shows what held the owner: `cut`
    /// clears what it stored, then the release is awaited again (`releasedAfterBreak`).
    public func settle<Owner: AnyObject>(breakingCycleWith cut: (Owner) -> Void) {
        guard !awaitRelease() else { return }
        context.event("grace-over")
        let brokenAt = now()
        if let leaked = owner as? Owner { cut(leaked) } else { return }  // the release may happen in `cut`
        context.event("cycle-broken", at: brokenAt)
        let gone = awaitRelease()
        metrics[Self.releasedAfterBreakKey] = gone ? 1 : 0
        if gone, let at = releasedAt { metrics[Self.releaseAfterBreakKey] = at - brokenAt }
    }

    /// `completed` when the owner went at its scope's end, `leaked` when alive after its grace
    /// period, else `outlived-scope`.
    public var outcome: Outcome {
        guard released == true else { return .leaked }
        return aliveAtScopeExit == false ? .completed : "outlived-scope"
    }

    /// The monotonic clock's instant now: the clock of `releasedAt` and of the events.
    public func now() -> Double { MonotonicClock.now() }

    /// Lets the clock reach `deadline` with the main queue running (its blocks and timers run
    /// meanwhile), or stops as soon as `done` holds; true when it held.
    @discardableResult
    public func runMainQueue(until deadline: Double, stoppingWhen done: () -> Bool = { false }) -> Bool {
        MainQueueFriendlyWait.until(deadline: deadline, done)
    }

    /// `released 14 µs after its scope ended`, `still alive 500 ms after its scope ended`.
    public var releaseSummary: String { Self.releaseSummary(metrics) }

    /// The same sentence from a report's metrics.
    public static func releaseSummary(_ metrics: Metrics) -> String {
        switch metrics[releasedKey] {
        case 1?: "released \(metrics[releaseAfterScopeKey].map(Format.seconds) ?? "?") after its scope ended"
        case 0?:
            "still alive \(metrics[graceKey].map(Format.seconds) ?? "?") after its scope ended"
                + (metrics[graceStallKey].map { " (and \(Format.seconds($0)) more, for a stall of the machine)" } ?? "")
        default: "release not measured"
        }
    }

    /// The metrics it records (flags are 0/1): whether the owner went within its grace period
    /// (`released`), how long after its scope's end, the grace period, whether it outlived the
    /// closing brace, and for a leak whether (and how soon) clearing what held it released it.
    public static let releasedKey = "released", releaseAfterScopeKey = "release_after_scope_s"
    public static let graceKey = "grace_s", aliveAtScopeExitKey = "alive_at_scope_exit"
    /// The seconds the grace was extended by, for what a same-moment control lost meanwhile.
    public static let graceStallKey = "grace.stall_s"
    /// The most a grace is extended for the machine's stalls.
    static let stallAllowance = StallAllowance.most
    public static let releasedAfterBreakKey = "released_after_break",
        releaseAfterBreakKey = "release_after_break_s"
}
