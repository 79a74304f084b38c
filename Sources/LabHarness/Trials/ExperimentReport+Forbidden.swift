extension ExperimentReport {
    /// The variants that ended with an outcome their declaration forbids (or never declared),
    /// in report order. As in jcstress, one observed forbidden outcome fails the run, whether
    /// or not a finding reads that variant: the variant is wrong, or the platform differs from
    /// what the lab knows, and either must not pass in silence.
    public var forbiddenVariants: [VariantReport] { variants.filter { $0.grade == .forbidden } }

    /// No finding was judged: the variants that ran (a `--variant` subset) cover no finding's
    /// needs, or every finding they cover does not apply (on this platform, or to this run's
    /// options). Such a run proves nothing about the findings, so it does not pass: "0 of 0
    /// reproduced" must not read as success to a script that checks the exit status. Beside
    /// a finding that was judged, one that does not apply never fails a run.
    var judgedNothing: Bool { !findings.contains(where: \.applicable) }

    /// The run passed: at least one finding was judged, every applicable finding reproduced and
    /// no variant ended forbidden. The experiment's exit status is 0 exactly then.
    public var passed: Bool { allReproduced && forbiddenVariants.isEmpty && !judgedNothing }

    /// The findings the machine (or an interruption) kept from being judged.
    public var unjudgedFindings: [FindingReport] { findings.filter(\.notJudged) }

    /// The variants that ended in one of the machine's outcomes (or were interrupted).
    public var machineVariants: [VariantReport] { variants.filter { $0.outcome.judgesNothing } }

    /// The variants that did not see their claim's mechanism (and were not broken by the machine).
    var unseenMechanismVariants: [VariantReport] {
        variants.filter { $0.mechanism?.seen == false && !$0.outcome.judgesNothing }
    }
}
