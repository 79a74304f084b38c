/// The verdict on a finding: was its mechanism seen, did its symptom show, and the measured
/// figures that say so.
public struct Verdict: Sendable, Equatable {
    public var reproduced: Bool
    /// False when the claim's mechanism was not seen (or the machine broke the trial): the
    /// claim is neither reproduced nor refuted.
    public var judged: Bool
    /// One sentence with the numbers: "0 of 300 requests saw their 1 s timeout within 3 s".
    public var summary: String

    /// The verdict of a claim: reproduced when its `symptom` showed *and* its `mechanism` was
    /// seen; not reproduced when the mechanism was seen without the symptom; not judged when the
    /// mechanism was not seen, whatever the symptom (a symptom without its cause may have any
    /// cause, the machine's included).
    public init(symptom: Bool, mechanism: Evidence, _ summary: String) {
        if mechanism.seen {
            reproduced = symptom
            judged = true
            self.summary = summary + "; mechanism: " + mechanism.what
        } else {
            reproduced = false
            judged = false
            self.summary = "not judged (mechanism not seen: \(mechanism.what)); " + summary
        }
    }

    /// A claim the run could not judge, with the reason.
    public static func notJudged(_ reason: String) -> Verdict {
        var verdict = Verdict(symptom: false, mechanism: .notSeen(reason), "")
        verdict.summary = "not judged (\(reason))"
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

    public init(variants: [String: VariantReport], options: ParsedOptions, platform: PlatformInfo,
                parsedParameters: (any ExperimentParameters)? = nil, sweep: [SweepPoint] = []) {
        self.variants = variants
        self.sweep = sweep
        self.options = options
        self.platform = platform
        self.parsedParameters = parsedParameters ?? NoParameters(options)
    }

    /// The experiment's typed parameters.
    public func parameters<P: ExperimentParameters>(_ type: P.Type = P.self) -> P {
        guard let typed = parsedParameters as? P else {
            preconditionFailure("finding reads \(P.self), but the experiment's parameters are \(Swift.type(of: parsedParameters))")
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

    public init(_ id: String, claim: String, needs: [String],
                appliesWhen applies: @escaping @Sendable (PlatformInfo) -> Bool = { _ in true },
                notApplicableReason: String = "",
                premiseMissing: @escaping @Sendable (ParsedOptions) -> String? = { _ in nil },
                thresholds: [Threshold] = [],
                evaluate: @escaping @Sendable (FindingInputs) -> Verdict) {
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
    func report(variants: [String: VariantReport], options: ParsedOptions, platform: PlatformInfo,
                parameters: any ExperimentParameters, sweep: [SweepPoint] = []) -> FindingReport? {
        guard needs.allSatisfy({ variants[$0] != nil }) else { return nil }
        guard applies(platform) else {
            let reason = notApplicableReason.isEmpty ? "" : ": \(notApplicableReason)"
            return FindingReport(id: id, applicable: false, reproduced: false, summary: "not applicable on \(platform.os)\(reason)")
        }
        if let missing = premiseMissing(options) {
            return FindingReport(id: id, applicable: false, reproduced: false, summary: "not applicable to this run: \(missing)")
        }
        // A variant the machine broke (or an interruption stopped) measured nothing about the
        // program: the finding is neither reproduced nor refuted on this run.
        if let broken = needs.compactMap({ variants[$0] }).first(where: { $0.outcome.judgesNothing }) {
            let why = broken.outcome == .interrupted ? "interrupted" : "the machine"
            let evidence = (broken.evidence ?? "").replacingOccurrences(of: "the machine: ", with: "")
            return FindingReport(id: id, applicable: true, reproduced: false,
                                 summary: "not judged (\(why): \(broken.name) ended \(broken.outcome)" + (evidence.isEmpty ? "" : ": \(evidence)") + ")",
                                 judged: false)
        }
        // A variant that did not see its own mechanism says nothing about a claim that reads it.
        if let unseen = needs.compactMap({ variants[$0] }).first(where: { $0.mechanism?.seen == false }) {
            return FindingReport(id: id, applicable: true, reproduced: false,
                                 summary: "not judged (\(unseen.name) did not see its mechanism: \(unseen.mechanism?.what ?? ""))",
                                 judged: false)
        }
        let verdict = evaluate(FindingInputs(variants: variants, options: options, platform: platform, parsedParameters: parameters,
                                             sweep: sweep))
        let limits = thresholds.isEmpty ? "" : " [" + thresholds.map(\.description).joined(separator: ", ") + "]"
        return FindingReport(id: id, applicable: true, reproduced: verdict.reproduced, summary: verdict.summary + limits,
                             judged: verdict.judged ? nil : false,
                             thresholds: thresholds.isEmpty ? nil : Dictionary(thresholds.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a }))
    }
}

extension Claim {
    /// The finding report of this claim, from its variant's report: reproduced when the outcome
    /// is graded `expected` and the mechanism was seen; not judged when the machine broke the
    /// trial or the mechanism was not seen.
    func report(_ variant: VariantReport, expectations: [OutcomeExpectation]) -> FindingReport {
        let evidence = variant.evidence.map { ": \($0)" } ?? ""
        if variant.outcome.judgesNothing {
            let why = variant.outcome == .interrupted ? "interrupted" : "the machine"
            let told = evidence.replacingOccurrences(of: "the machine: ", with: "")
            return FindingReport(id: id, applicable: true, reproduced: false,
                                 summary: "not judged (\(why): \(variant.name) ended \(variant.outcome)\(told))", judged: false)
        }
        if let mechanism = variant.mechanism, !mechanism.seen {
            return FindingReport(id: id, applicable: true, reproduced: false,
                                 summary: "not judged (mechanism not seen: \(mechanism.what)); \(variant.name) ended \(variant.outcome)\(evidence)",
                                 judged: false)
        }
        let grade = expectations.grade(of: variant.outcome)
        if grade == .expected, variant.mechanism == nil {
            // A body that records no evidence at all cannot reproduce its claim: the symptom alone judges nothing.
            return FindingReport(id: id, applicable: true, reproduced: false,
                                 summary: "not judged (mechanism not recorded: \(variant.name) ended \(variant.outcome) without saying what it saw of the cause)\(evidence)",
                                 judged: false)
        }
        let mechanism = variant.mechanism.map { "; mechanism: \($0.what)" } ?? ""
        let meaning = expectations.meaning(of: variant.outcome).map { " (\($0))" } ?? ""
        let limits = thresholds.isEmpty ? "" : " [" + thresholds.map(\.description).joined(separator: ", ") + "]"
        return FindingReport(id: id, applicable: true, reproduced: grade == .expected,
                             summary: "\(variant.name) ended \(variant.outcome)\(grade == .expected ? "" : meaning)\(evidence)\(mechanism)\(limits)",
                             thresholds: thresholds.isEmpty ? nil : Dictionary(thresholds.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a }))
    }
}
