extension ExperimentReport {
    /// The variants that ended with an outcome their declaration forbids (or never declared),
    /// in report order. As in jcstress, one observed forbidden outcome fails the run, whether
    /// or not a finding reads that variant: the variant is wrong, or the platform differs from
    /// what the lab knows, and either must not pass in silence.
    public var forbiddenVariants: [VariantReport] { variants.filter { $0.grade == .forbidden } }

    /// The run passed: every applicable finding reproduced and no variant ended forbidden.
    /// The experiment's exit status is 0 exactly then.
    public var passed: Bool { allReproduced && forbiddenVariants.isEmpty }
}
