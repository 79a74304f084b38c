/// How the harness schedules and bounds one trial of a variant, given the run's options: its
/// wall budget, its stall window, a rough estimate and the total its progress counts up to.
///
/// An experiment defines one value per family of variants (the requests of exp-runloop, the
/// floods of exp-pool, ...) in its parameters file, so a declaration names the family instead
/// of repeating the arithmetic; a variant that differs only in its estimate says so with
/// `estimating(_:)`. `standard` is the harness's default: 60 s, no stall window, about a second.
public struct TrialLimits: Sendable {
    /// Wall budget of a child trial. Past it the child is killed and the outcome comes from the
    /// harness (`deadlock` or `timed-out`).
    public var budget: @Sendable (ParsedOptions) -> Seconds
    /// Kill a child that reports no progress for this long (`nil`: budget only).
    public var stallWindow: @Sendable (ParsedOptions) -> Seconds?
    /// A rough expected duration, for scheduling (longest first) and the progress line.
    public var estimate: @Sendable (ParsedOptions) -> Seconds
    /// The total the progress counter counts up to, if known (shown as `done/total`).
    public var progressTotal: @Sendable (ParsedOptions) -> Int?
    /// The metric that receives the child's last progress value when the harness has to build
    /// the result itself (a child that was killed or crashed), such as `completed`.
    public var progressMetric: String?

    public init(budget: @escaping @Sendable (ParsedOptions) -> Seconds = { _ in 60 },
                stallWindow: @escaping @Sendable (ParsedOptions) -> Seconds? = { _ in nil },
                estimate: @escaping @Sendable (ParsedOptions) -> Seconds = { _ in 1 },
                progressTotal: @escaping @Sendable (ParsedOptions) -> Int? = { _ in nil },
                progressMetric: String? = nil) {
        self.budget = budget
        self.stallWindow = stallWindow
        self.estimate = estimate
        self.progressTotal = progressTotal
        self.progressMetric = progressMetric
    }

    /// The harness's default limits.
    public static let standard = TrialLimits()

    /// The same limits with another estimate.
    public func estimating(_ estimate: @escaping @Sendable (ParsedOptions) -> Seconds) -> TrialLimits {
        var copy = self
        copy.estimate = estimate
        return copy
    }

    /// The same limits with another budget.
    public func budgeted(_ budget: @escaping @Sendable (ParsedOptions) -> Seconds) -> TrialLimits {
        var copy = self
        copy.budget = budget
        return copy
    }
}
