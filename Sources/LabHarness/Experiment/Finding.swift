/// The verdict on a finding: did the expectation hold, and the measured figures that say so.
public struct Verdict: Sendable, Equatable {
    public var reproduced: Bool
    /// One sentence with the numbers: "0 of 300 requests saw their 1 s timeout within 3 s".
    public var summary: String

    public init(_ reproduced: Bool, _ summary: String) {
        self.reproduced = reproduced
        self.summary = summary
    }
}

/// What a finding's evaluation can look at: the reports of the variants it needs, the options
/// of the run and the platform.
public struct FindingInputs: Sendable {
    public var variants: [String: VariantReport]
    public var options: ParsedOptions
    public var platform: PlatformInfo

    /// The report of a variant the finding declared in `needs`.
    public subscript(variant: String) -> VariantReport {
        guard let report = variants[variant] else {
            preconditionFailure("finding asked for variant '\(variant)' that it did not declare in needs")
        }
        return report
    }

    /// A metric of a needed variant, `nil` when the variant did not record it.
    public func metric(_ variant: String, _ name: String) -> Double? {
        variants[variant]?.metrics[name]
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
    public var applies: @Sendable (PlatformInfo) -> Bool
    /// Said in the report when the finding does not apply.
    public var notApplicableReason: String
    /// Why this run's options do not set up the claim's premise, or `nil` when they do.
    public var premiseMissing: @Sendable (ParsedOptions) -> String?
    public var evaluate: @Sendable (FindingInputs) -> Verdict

    public init(_ id: String, claim: String, needs: [String],
                appliesWhen applies: @escaping @Sendable (PlatformInfo) -> Bool = { _ in true },
                notApplicableReason: String = "",
                premiseMissing: @escaping @Sendable (ParsedOptions) -> String? = { _ in nil },
                evaluate: @escaping @Sendable (FindingInputs) -> Verdict) {
        self.id = id
        self.claim = claim
        self.needs = needs
        self.applies = applies
        self.notApplicableReason = notApplicableReason
        self.premiseMissing = premiseMissing
        self.evaluate = evaluate
    }

    /// A finding that holds when a variant's outcome is the one given (for example a trap
    /// that must be reported as `crashed`); the summary quotes the variant's evidence.
    public static func outcome(_ id: String, claim: String, variant: String, is expected: Outcome) -> Finding {
        Finding(id, claim: claim, needs: [variant]) { inputs in
            let report = inputs[variant]
            let evidence = report.evidence.map { ": \($0)" } ?? ""
            return Verdict(report.outcome == expected, "\(variant) ended \(report.outcome)\(evidence)")
        }
    }

    /// Evaluates the finding, or says why it was not.
    func report(variants: [String: VariantReport], options: ParsedOptions, platform: PlatformInfo) -> FindingReport? {
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
        let verdict = evaluate(FindingInputs(variants: variants, options: options, platform: platform))
        return FindingReport(id: id, applicable: true, reproduced: verdict.reproduced, summary: verdict.summary)
    }
}
