/// What a variant's body gets: its options, a progress counter the harness watches, and its
/// start time.
public final class VariantContext: Sendable {
    public let variant: String
    public let options: ParsedOptions
    /// Advance it as work completes: the parent shows it live, and a child that stops
    /// advancing it for its stall window is a deadlock.
    public let progress: ProgressCounter
    /// Monotonic start of the trial.
    public let startedAt: Seconds
    /// Whether this trial runs in a child process (so it may block, leak or trap on purpose).
    public let inChild: Bool
    /// The arguments that select this experiment in its executable (empty for `exp-NAME`,
    /// `["NAME"]` when `lab` hosts it): what a trial needs to launch its own program again.
    public let selector: [String]

    public init(variant: String, options: ParsedOptions, inChild: Bool, progress: ProgressCounter = ProgressCounter(),
                selector: [String] = []) {
        self.variant = variant
        self.options = options
        self.inChild = inChild
        self.progress = progress
        self.selector = selector
        startedAt = MonotonicClock.now()
    }

    /// The executable and arguments that run this experiment's program again with `arguments`
    /// (for a trial that needs a process of its own, such as one that traps on purpose).
    public func relaunch(_ arguments: [String]) -> (executable: String, arguments: [String]) {
        (ChildProcess.currentExecutablePath(), selector + arguments)
    }

    public var quick: Bool { options.quick }

    /// Seconds since the trial started.
    public func elapsed() -> Seconds { MonotonicClock.now() - startedAt }

    /// Seconds since the trial started at monotonic instant `instant`.
    public func since(_ instant: Seconds) -> Seconds { instant - startedAt }
}
