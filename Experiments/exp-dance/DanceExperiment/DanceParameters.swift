import LabHarness

/// exp-dance's options, parsed once by the harness: bodies read them with
/// `context.parameters(DanceParameters.self)`, declarations with `time: .from { ... }`.
public struct DanceParameters: ExperimentParameters {
    /// `--delay`: the seed's two seconds before `completion1` (and the weak-strong retry).
    public var delay: Seconds
    /// `--grace`: how long an owner may outlive its scope before it counts as leaked.
    public var grace: Seconds

    public init(_ options: ParsedOptions) {
        delay = options.double("delay")
        grace = options.double("grace")
    }
}

/// The metric keys exp-dance records, for its report and its tests. They are the JSON
/// contract's names (`metrics` in schema 1; notes quote some): a rename here changes the JSON.
/// The capture probe adds `capture.MOMENT.COUNT` (see `CaptureProbe.key`).
public enum DanceMetric {
    /// 0/1: the owner was still alive right after its scope's closing brace.
    public static let aliveAtScopeExit: MetricKey = "alive_at_scope_exit"
    /// 0/1 (heap-stack-delayed): foo was alive half way through the delay.
    public static let aliveMidDelay: MetricKey = "alive_mid_delay"
    public static let completion1AfterCompletion2S: MetricKey = "completion1_after_completion2_s"
    /// What a same-moment control lost to the machine between completion1 and the deinit.
    public static let deinitAfterCompletion1ControlDelayS: MetricKey = "deinit_after_completion1.control_delay_s"
    public static let deinitAfterCompletion1S: MetricKey = "deinit_after_completion1_s"
    /// 0/1 (weak-strong): the delayed retry found its owner gone.
    public static let delayedFoundNil: MetricKey = "delayed.found_nil"
    public static let delayedRanAfterScopeS: MetricKey = "delayed.ran_after_scope_s"
    public static let graceS: MetricKey = "grace_s"
    public static let releaseAfterBreakS: MetricKey = "release_after_break_s"
    public static let releaseAfterScopeS: MetricKey = "release_after_scope_s"
    /// 0/1: the owner was released within its grace period.
    public static let released: MetricKey = "released"
    /// 0/1: clearing the stored closure of a leaked owner released it.
    public static let releasedAfterBreak: MetricKey = "released_after_break"
}
