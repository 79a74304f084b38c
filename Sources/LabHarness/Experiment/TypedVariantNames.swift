// A variant's name as a type: an experiment lists its variants in one `String` enum (the raw
// values are the names on the command line and in JSON), and declarations, verdicts, reports
// and tests refer to the cases. A renamed variant then fails to compile everywhere it is read,
// instead of showing "—" in a table. Any `RawRepresentable<String>` will do, so the enum needs
// no protocol of the harness's. The cost: any other `String` enum compiles here too, one whose
// raw values are not this experiment's variants included (`FindingInputs[_:]` then stops at a
// precondition, as for a variant the finding did not declare; `ran` and `variant` find nil).

extension Finding {
    /// A finding over typed variant names.
    public init<Name: RawRepresentable<String>>(
        _ id: String, claim: String, needs: [Name],
        appliesWhen applies: @escaping @Sendable (PlatformInfo) -> Bool = { _ in true },
        notApplicableReason: String = "",
        premiseMissing: @escaping @Sendable (ParsedOptions) -> String? = { _ in nil },
        thresholds: [Threshold] = [],
        evaluate: @escaping @Sendable (FindingInputs) -> Verdict
    ) {
        self.init(
            id, claim: claim, needs: needs.map(\.rawValue), appliesWhen: applies,
            notApplicableReason: notApplicableReason, premiseMissing: premiseMissing, thresholds: thresholds,
            evaluate: evaluate)
    }
}

extension FindingInputs {
    /// The report of a variant the finding declared in `needs`.
    public subscript<Name: RawRepresentable<String>>(variant: Name) -> VariantReport { self[variant.rawValue] }

    /// The report of a variant the finding may use when it ran (`nil` when it did not, or when
    /// the machine broke it or an interruption stopped it: such a variant measured nothing about
    /// the program, so a finding that only may read it judges without it, as if it had not run).
    public func ran<Name: RawRepresentable<String>>(_ variant: Name) -> VariantReport? {
        variants[variant.rawValue].flatMap { $0.outcome.judgesNothing ? nil : $0 }
    }
}

extension ExperimentReport {
    /// The report of a variant, by typed name.
    public func variant<Name: RawRepresentable<String>>(_ name: Name) -> VariantReport? { variant(name.rawValue) }
}
