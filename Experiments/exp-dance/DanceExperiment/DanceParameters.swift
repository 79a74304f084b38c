import LabHarness

/// exp-dance's options, parsed once by the harness (bodies read them through `OwnerTrial`).
public struct DanceParameters: ExperimentParameters {
    /// `--delay` (the article's two seconds before `completion1`) and `--grace`.
    public var delay: Double, grace: Double
    public init(_ options: ParsedOptions) { (delay, grace) = (options.double("delay"), options.double("grace")) }

    /// How long each kind of trial takes (the harness derives budgets from it): an owner that
    /// should go at once, one that leaks (grace, then the cycle broken), delayed work, the trap.
    var releaseTime: Double { grace / 2 }
    var leakTime: Double { 2 * grace }
    var delayedTime: Double { delay + grace }
    var trapTime: Double { grace + 0.5 }
}

/// The metric keys exp-dance records, for its report and tests: the JSON contract's names (notes
/// quote some). The owner's release is `LifetimeTrial`'s; the capture probe's readings are
/// `capture.MOMENT.COUNT`. Flags are 0/1.
public enum DanceMetric {
    public static let aliveAtScopeExit = LifetimeTrial.aliveAtScopeExitKey, released = LifetimeTrial.releasedKey
    public static let graceS = LifetimeTrial.graceKey, releaseAfterScopeS = LifetimeTrial.releaseAfterScopeKey
    public static let releasedAfterBreak = LifetimeTrial.releasedAfterBreakKey,
        releaseAfterBreakS = LifetimeTrial.releaseAfterBreakKey
    public static let aliveMidDelay = "alive_mid_delay"
    public static let completion1AfterCompletion2S = "completion1_after_completion2_s",
        deinitAfterCompletion1S = "deinit_after_completion1_s"
    /// The machine's share of `deinitAfterCompletion1S`, seen by a same-moment control.
    public static let deinitAfterCompletion1ControlDelayS = "deinit_after_completion1.control_delay_s"
    public static let delayedFoundNil = "delayed.found_nil", delayedRanAfterScopeS = "delayed.ran_after_scope_s"

    /// The capture probe's count at one moment: `capture.stored.strong`.
    public static func capture(_ moment: String, _ count: String) -> String {
        "capture.\(moment).\(count)"
    }
}
