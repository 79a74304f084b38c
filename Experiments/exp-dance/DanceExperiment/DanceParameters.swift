import LabHarness

/// exp-dance's variants by name: the declaration, the verdicts and the tests all refer to
/// these cases, so a rename fails to compile instead of showing "—".
public enum DanceVariant: String, CaseIterable, VariantName {
    case strongCapture = "strong-capture"
    case weakStrong = "weak-strong"
    case heapStack = "heap-stack"
    case heapStackDelayed = "heap-stack-delayed"
    case hiddenAPICycle = "hidden-api-cycle"
    case hiddenAPIFixed = "hidden-api-fixed"
    case unownedAfterRelease = "unowned-after-release"
}

/// exp-dance's options, read once, and the limits of its trials.
public struct DanceParameters: Sendable {
    /// `--delay`: the seed's two seconds before `completion1` (and the weak-strong retry).
    public var delay: Seconds
    /// `--grace`: how long an owner may outlive its scope before it counts as leaked.
    public var grace: Seconds

    public init(_ options: ParsedOptions) {
        delay = options.double("delay")
        grace = options.double("grace")
    }

    /// Variants whose owner should go when its scope ends: a moment, plus the grace period if not.
    static let releaseLimits = TrialLimits(budget: { 10 + DanceParameters($0).grace }, estimate: { _ in 0.1 })
    /// Variants whose owner leaks: the grace period, then the cycle is broken and awaited again.
    static let leakLimits = TrialLimits(budget: { 10 + 3 * DanceParameters($0).grace },
                                        estimate: { 2 * DanceParameters($0).grace })
    /// Variants that wait for delayed work (`--delay`) before the owner may go.
    static let delayedLimits = TrialLimits(budget: { 10 + DanceParameters($0).delay + 2 * DanceParameters($0).grace },
                                           estimate: { DanceParameters($0).delay })
    /// The variant that traps on purpose: room for the trap's report.
    static let trapLimits = TrialLimits(budget: { 20 + DanceParameters($0).grace },
                                        estimate: { DanceParameters($0).grace + 0.3 })
}

/// The metric keys exp-dance records and reads back in its verdicts and report, spelled once.
/// They are the JSON contract's names (`metrics` in schema 1); a rename here changes the JSON.
enum DanceMetric {
    static let aliveAtScopeExit = "alive_at_scope_exit"
    static let aliveMidDelay = "alive_mid_delay"
    static let completion1AfterCompletion2S = "completion1_after_completion2_s"
    static let deinitAfterCompletion1ControlDelayS = "deinit_after_completion1.control_delay_s"
    static let deinitAfterCompletion1S = "deinit_after_completion1_s"
    static let delayedFoundNil = "delayed.found_nil"
    static let delayedRanAfterScopeS = "delayed.ran_after_scope_s"
    static let graceS = "grace_s"
    static let releaseAfterBreakS = "release_after_break_s"
    static let releaseAfterScopeS = "release_after_scope_s"
    static let released = "released"
    static let releasedAfterBreak = "released_after_break"
    static let signal = "signal"
}
