/// Why a claim was neither reproduced nor refuted. Decided where the verdict is made (by
/// `NotJudgedReason.before(reading:)` for the trials a claim reads, or by a finding's own rule),
/// carried beside the verdict's sentence and in the JSON (`not_judged_reason`), so no reader
/// has to find it in the prose.
public enum NotJudgedReason: String, Sendable, Codable, CaseIterable {
    /// A trial it reads ended in one of the machine's outcomes (cpu-starved, resource-limited,
    /// out-of-memory, killed or stopped from outside): it measured the machine, not the program.
    case machineOutcome = "machine-outcome"
    /// The cause the claim rests on was not seen (or the body recorded nothing of it): a
    /// symptom without its cause may have any cause.
    case mechanismNotSeen = "mechanism-not-seen"
    /// The run lacks what the claim compares: a variant, a sweep point, a kind of caller.
    case variantMissing = "variant-missing"
    /// The run was interrupted before the trial ended.
    case interrupted

    /// The one rule for the trials a claim reads: the first that the machine broke or an
    /// interruption stopped, else the first that did not see its mechanism; `nil` when every
    /// one can be judged.
    public static func before(reading variants: [VariantReport]) -> (reason: NotJudgedReason, variant: VariantReport)? {
        if let broken = variants.first(where: { $0.outcome.judgesNothing }) {
            return (broken.outcome == .interrupted ? .interrupted : .machineOutcome, broken)
        }
        if let unseen = variants.first(where: { $0.mechanism?.seen == false }) { return (.mechanismNotSeen, unseen) }
        return nil
    }

    /// The verdict's sentence for a trial that kept its claim from being judged: "not judged
    /// (v ended cpu-starved): the machine: waited 3 s for a CPU". The trial's own evidence
    /// follows whole (a machine outcome's says "the machine: ..." itself); the reason's name
    /// stands in when it has none.
    func sentence(_ variant: VariantReport) -> String {
        switch self {
        case .machineOutcome, .interrupted:
            let named = self == .interrupted ? "interrupted" : "the machine"
            let told = variant.evidence.flatMap { $0.isEmpty ? nil : $0 } ?? named
            return "not judged (\(variant.name) ended \(variant.outcome)): \(told)"
        case .mechanismNotSeen:
            return
                "not judged (mechanism not seen: \(variant.mechanism?.what ?? "")); \(variant.name) ended \(variant.outcome)"
                + (variant.evidence.map { ": \($0)" } ?? "")
        case .variantMissing:
            return "not judged (\(variant.name) did not run)"
        }
    }
}

/// What a verdict decided: reproduced (symptom and mechanism seen), not reproduced (mechanism
/// seen, symptom not), or not judged, with the reason.
public enum VerdictStatus: Sendable, Equatable {
    case reproduced, notReproduced, notJudged(NotJudgedReason)

    /// The reason, when not judged.
    public var notJudgedReason: NotJudgedReason? {
        if case .notJudged(let reason) = self { return reason }
        return nil
    }
}

/// The verdict on a finding: was its mechanism seen, did its symptom show, and the measured
/// figures that say so.
public struct Verdict: Sendable, Equatable {
    public var status: VerdictStatus
    /// One sentence with the numbers: "0 of 300 requests saw their 1 s timeout within 3 s".
    public var summary: String

    public var reproduced: Bool { status == .reproduced }
    /// False when the claim's mechanism was not seen (or the run lacked what it compares): the
    /// claim is neither reproduced nor refuted.
    public var judged: Bool { status.notJudgedReason == nil }

    /// The verdict of a claim: reproduced when its `symptom` showed *and* its `mechanism` was
    /// seen; not reproduced when the mechanism was seen without the symptom; not judged when the
    /// mechanism was not seen, whatever the symptom (a symptom without its cause may have any
    /// cause, the machine's included).
    public init(symptom: Bool, mechanism: Evidence, _ summary: String) {
        if mechanism.seen {
            status = symptom ? .reproduced : .notReproduced
            self.summary = summary + "; mechanism: " + mechanism.what
        } else {
            status = .notJudged(.mechanismNotSeen)
            self.summary = "not judged (mechanism not seen: \(mechanism.what)); " + summary
        }
    }

    /// A claim the run could not judge, with the reason in words and as a kind (by default:
    /// the run lacks what the claim compares).
    public static func notJudged(_ why: String, reason: NotJudgedReason = .variantMissing) -> Verdict {
        var verdict = Verdict(symptom: false, mechanism: .notSeen(why), "")
        verdict.status = .notJudged(reason)
        verdict.summary = "not judged (\(why))"
        return verdict
    }
}

/// What a finding's evaluation can look at: the reports of the variants it needs, the options
/// of the run and the platform.
public struct FindingInputs: Sendable {
    public var variants: [String: VariantReport]
    public var options: ParsedOptions
    public var platform: PlatformInfo
    /// The experiment's typed parameters, parsed once.
    var parsedParameters: any ExperimentParameters
    /// A sweep's points (empty outside a sweep; see `points(of:)`).
    public var sweep: [SweepPoint]

    public init(
        variants: [String: VariantReport], options: ParsedOptions, platform: PlatformInfo,
        parsedParameters: (any ExperimentParameters)? = nil, sweep: [SweepPoint] = []
    ) {
        self.variants = variants
        self.sweep = sweep
        self.options = options
        self.platform = platform
        self.parsedParameters = parsedParameters ?? NoParameters(options)
    }

    /// The experiment's typed parameters.
    public func parameters<P: ExperimentParameters>(_ type: P.Type = P.self) -> P {
        guard let typed = parsedParameters as? P else {
            preconditionFailure(
                "finding reads \(P.self), but the experiment's parameters are \(Swift.type(of: parsedParameters))")
        }
        return typed
    }

    /// The report of a variant the finding declared in `needs`.
    public subscript(variant: String) -> VariantReport {
        guard let report = variants[variant] else {
            preconditionFailure("finding asked for variant '\(variant)' that it did not declare in needs")
        }
        return report
    }
}

/// A claim the experiment checks, with an id that is part of the lab's contract.
///
/// A finding names the variants it needs; it is evaluated only when all of them ran (a run
/// restricted with `--variant` leaves the others out of the report), only on platforms where it
/// applies, and only when the run's options fit its premise (a claim about callers that block
/// the pool says nothing about a run whose callers are threads of their own). Otherwise it is
/// reported with `applicable: false` and the reason, which never fails a run: judging a claim
/// whose premise the run did not set up would give a verdict that means nothing, either way.
public struct Finding: Sendable {
    public var id: String
    /// The claim in one line, for `--help` and reports.
    public var claim: String
    public var needs: [String]
    var applies: @Sendable (PlatformInfo) -> Bool
    /// Said in the report when the finding does not apply.
    var notApplicableReason: String
    /// Why this run's options do not set up the claim's premise, or `nil` when they do.
    var premiseMissing: @Sendable (ParsedOptions) -> String?
    /// The figures the verdict is judged against, stated once; the report prints them after
    /// the verdict's sentence (and in the JSON's `thresholds`).
    var thresholds: [Threshold]
    public var evaluate: @Sendable (FindingInputs) -> Verdict

    public init(
        _ id: String, claim: String, needs: [String],
        appliesWhen applies: @escaping @Sendable (PlatformInfo) -> Bool = { _ in true },
        notApplicableReason: String = "",
        premiseMissing: @escaping @Sendable (ParsedOptions) -> String? = { _ in nil },
        thresholds: [Threshold] = [],
        evaluate: @escaping @Sendable (FindingInputs) -> Verdict
    ) {
        self.id = id
        self.claim = claim
        self.needs = needs
        self.applies = applies
        self.notApplicableReason = notApplicableReason
        self.premiseMissing = premiseMissing
        self.thresholds = thresholds
        self.evaluate = evaluate
    }

    /// Evaluates the finding, or says why it was not.
    func report(
        variants: [String: VariantReport], options: ParsedOptions, platform: PlatformInfo,
        parameters: any ExperimentParameters, sweep: [SweepPoint] = []
    ) -> FindingReport? {
        guard needs.allSatisfy({ variants[$0] != nil }) else { return nil }
        guard applies(platform) else {
            let reason = notApplicableReason.isEmpty ? "" : ": \(notApplicableReason)"
            return FindingReport(
                id: id, applicable: false, reproduced: false, summary: "not applicable on \(platform.os)\(reason)")
        }
        if let missing = premiseMissing(options) {
            return FindingReport(
                id: id, applicable: false, reproduced: false, summary: "not applicable to this run: \(missing)")
        }
        // A variant the machine broke (or an interruption stopped) measured nothing about the
        // program, and one that did not see its own mechanism says nothing about a claim that
        // reads it: the finding is neither reproduced nor refuted on this run.
        if let (reason, variant) = NotJudgedReason.before(reading: needs.compactMap { variants[$0] }) {
            let summary =
                reason == .mechanismNotSeen
                ? "not judged (\(variant.name) did not see its mechanism: \(variant.mechanism?.what ?? ""))"
                : reason.sentence(variant)
            return FindingReport(id: id, applicable: true, reproduced: false, summary: summary, notJudgedReason: reason)
        }
        let verdict = evaluate(
            FindingInputs(
                variants: variants, options: options, platform: platform, parsedParameters: parameters,
                sweep: sweep))
        let limits = thresholds.isEmpty ? "" : " [" + thresholds.map(\.description).joined(separator: ", ") + "]"
        return FindingReport(
            id: id, applicable: true, reproduced: verdict.reproduced, summary: verdict.summary + limits,
            notJudgedReason: verdict.status.notJudgedReason,
            thresholds: thresholds.isEmpty
                ? nil : Dictionary(thresholds.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a }))
    }
}

extension Claim {
    /// The finding report of this claim, from its variant's report: reproduced when the outcome
    /// is graded `expected` and the mechanism was seen; not judged when the machine broke the
    /// trial or the mechanism was not seen.
    func report(_ variant: VariantReport, expectations: [OutcomeExpectation]) -> FindingReport {
        let evidence = variant.evidence.map { ": \($0)" } ?? ""
        if let (reason, _) = NotJudgedReason.before(reading: [variant]) {
            return FindingReport(
                id: id, applicable: true, reproduced: false, summary: reason.sentence(variant), notJudgedReason: reason)
        }
        let grade = expectations.grade(of: variant.outcome)
        if grade == .expected, variant.mechanism == nil {
            // A body that records no evidence at all cannot reproduce its claim: the symptom alone judges nothing.
            return FindingReport(
                id: id, applicable: true, reproduced: false,
                summary: "not judged (mechanism not recorded: \(variant.name) ended \(variant.outcome) "
                    + "without saying what it saw of the cause)\(evidence)",
                notJudgedReason: .mechanismNotSeen)
        }
        let mechanism = variant.mechanism.map { "; mechanism: \($0.what)" } ?? ""
        var meaning = ""
        if grade != .expected {
            meaning = expectations.meaning(of: variant.outcome).map { " (\($0))" } ?? ""
            // Trials that ended differently: the outcome reported is the worst graded; say how often.
            if let trials = variant.trials, trials.count > 1 {
                let total = trials.values.reduce(0, +), own = trials[variant.outcome.rawValue] ?? 0
                let others = trials.filter { $0.key != variant.outcome.rawValue }.sorted { $0.key < $1.key }
                    .map { "\($0.value) \($0.key)" }.joined(separator: ", ")
                meaning += " in \(own) of \(total) trials (the others: \(others))"
            }
        }
        let limits = thresholds.isEmpty ? "" : " [" + thresholds.map(\.description).joined(separator: ", ") + "]"
        return FindingReport(
            id: id, applicable: true, reproduced: grade == .expected,
            summary:
                "\(variant.name) ended \(variant.outcome)\(meaning)\(evidence)\(mechanism)\(limits)",
            thresholds: thresholds.isEmpty
                ? nil : Dictionary(thresholds.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a }))
    }
}
