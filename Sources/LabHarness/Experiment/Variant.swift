/// One way of doing the thing an experiment studies, with the outcomes it expects.
///
/// A variant reads like a jcstress test: a name, one line on what it does, and the outcomes it
/// declares (expected / interesting / forbidden, each with its meaning). Its `body` does the
/// work and returns what it measured; the harness runs it in a child process (the experiment's
/// own executable relaunched with `--child-variant NAME`, so a trial that deadlocks, traps or
/// leaves threads parked harms neither the parent nor the next trial), watches it, grades the
/// outcome and reports.
public struct Variant: Sendable {
    public var name: String
    /// One line: what this variant does.
    public var summary: String
    /// Whether its trials run in the calling process instead of a child: set only by the
    /// harness's own tests (`@testable import`), for bodies that cannot hang or trap.
    var runsInProcess = false
    public var expectations: [OutcomeExpectation]
    /// Whether a run without `--variant` includes it (slow or special variants opt out).
    public var includedByDefault: Bool
    /// The metric that receives the child's last progress value when the harness has to build
    /// the result itself (a child that was killed or crashed), such as `completed`.
    var progressMetric: String?
    /// The claim this variant checks on its own, if any: it holds when the outcome is graded
    /// `expected` and the record's `mechanism` was seen.
    public var claim: Claim?
    /// How long a trial takes, from the experiment's typed parameters: the harness derives the
    /// child's budget, its stall window and the progress line's total from it.
    var timing: TrialTiming
    /// What the harness starts around the body (a same-moment control, a thread timeline).
    var instruments: Instruments = []
    public var body: @Sendable (VariantContext) throws -> VariantRecord

    /// A variant declared by its typed name: its outcomes, the claim it checks (if any), how
    /// long it takes and what the harness should measure around it. The harness derives the
    /// budget and stall window from `time`.
    public init<Name: RawRepresentable<String>>(
        _ name: Name,
        _ summary: String,
        expect expectations: [OutcomeExpectation],
        claim: Claim? = nil,
        includedByDefault: Bool = true,
        time: TrialTiming,
        instruments: Instruments = [],
        progressMetric: String? = nil,
        body: @escaping @Sendable (VariantContext) throws -> VariantRecord
    ) {
        self.init(
            name.rawValue, summary: summary, expect: expectations,
            includedByDefault: includedByDefault, time: time, progressMetric: progressMetric,
            claim: claim, body: body)
        self.instruments = instruments
    }

    /// The trial's time under the run's typed parameters.
    func trialTime(_ parameters: any ExperimentParameters) -> TrialTime {
        timing.derive(parameters)
    }

    /// A variant named by a plain string (the harness's own tests and fixtures). Without `time`
    /// a trial is expected to take about a second, with a minute's budget.
    public init(
        _ name: String,
        summary: String,
        expect expectations: [OutcomeExpectation],
        includedByDefault: Bool = true,
        time: TrialTiming = .fixed(TrialTime(expected: 1, budget: 60)),
        progressMetric: String? = nil,
        claim: Claim? = nil,
        body: @escaping @Sendable (VariantContext) throws -> VariantRecord
    ) {
        self.claim = claim
        self.timing = time
        self.name = name
        self.summary = summary
        self.expectations = expectations
        self.includedByDefault = includedByDefault
        self.progressMetric = progressMetric
        self.body = body
    }
}

/// What a variant's body measured: its outcome, flat metrics, and optional evidence, series
/// and events. It travels from a child to its parent as JSON.
public struct VariantRecord: Sendable, Equatable, Codable {
    public var outcome: Outcome
    public var metrics: Metrics
    public var evidence: String?
    public var series: [String: [[Double]]]
    public var events: [TimedEvent]
    /// Every thread's stack, for a deadlock or a stall (see `StackEvidence`).
    public var stacks: [ThreadStack]?
    /// What the trial saw of its claim's mechanism (see `Claim`, `Evidence`).
    public var mechanism: Evidence?

    public init(
        outcome: Outcome, metrics: Metrics = Metrics(), evidence: String? = nil,
        series: [String: [[Double]]] = [:], events: [TimedEvent] = [], stacks: [ThreadStack]? = nil,
        mechanism: Evidence? = nil
    ) {
        self.mechanism = mechanism
        self.outcome = outcome
        self.metrics = metrics
        self.evidence = evidence
        self.series = series
        self.events = events
        self.stacks = stacks
    }
}
