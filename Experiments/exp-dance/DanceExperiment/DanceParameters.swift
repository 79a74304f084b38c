import LabHarness

/// exp-dance's options, parsed once by the harness (bodies read them through `OwnerTrial`).
public struct DanceParameters: ExperimentParameters {
    /// `--delay` (the article's two seconds before `completion1`) and `--grace`.
    public var delay: Seconds, grace: Seconds
    public init(_ options: ParsedOptions) { (delay, grace) = (options.double("delay"), options.double("grace")) }
}

/// The metric keys exp-dance records, for its report and tests: the JSON contract's names (notes
/// quote some). The capture probe adds `capture.MOMENT.COUNT` (`CaptureProbe.key`). Flags are 0/1.
public enum DanceMetric {
    public static let aliveAtScopeExit: MetricKey = "alive_at_scope_exit", aliveMidDelay: MetricKey = "alive_mid_delay"
    public static let completion1AfterCompletion2S: MetricKey = "completion1_after_completion2_s",
        deinitAfterCompletion1S: MetricKey = "deinit_after_completion1_s"
    public static let deinitAfterCompletion1ControlDelayS: MetricKey = "deinit_after_completion1.control_delay_s"  // the machine's share
    public static let delayedFoundNil: MetricKey = "delayed.found_nil",
        delayedRanAfterScopeS: MetricKey = "delayed.ran_after_scope_s"
    public static let graceS: MetricKey = "grace_s", released: MetricKey = "released",
        releaseAfterScopeS: MetricKey = "release_after_scope_s"
    public static let releasedAfterBreak: MetricKey = "released_after_break",
        releaseAfterBreakS: MetricKey = "release_after_break_s"
}
