/// A column of the terminal report's variant table.
public struct ReportColumn: Sendable {
    public var header: String
    public var value: @Sendable (VariantReport) -> String

    public init(_ header: String, value: @escaping @Sendable (VariantReport) -> String) {
        self.header = header
        self.value = value
    }

    /// A metric in seconds (`1.02 s`, `350 ms`); `—` when absent.
    public static func seconds(_ header: String, _ metric: String) -> ReportColumn {
        ReportColumn(header) { $0.metrics[metric].map(Format.seconds) ?? "—" }
    }

    /// A metric already in milliseconds.
    public static func milliseconds(_ header: String, _ metric: String) -> ReportColumn {
        ReportColumn(header) { $0.metrics[metric].map(Format.milliseconds) ?? "—" }
    }

    /// A plain count.
    public static func count(_ header: String, _ metric: String) -> ReportColumn {
        ReportColumn(header) { $0.metrics[metric].map(Format.count) ?? "—" }
    }

    /// `part/whole` of two metrics, such as `completed/total`.
    public static func ratio(_ header: String, _ part: String, of whole: String) -> ReportColumn {
        ReportColumn(header) { Format.ratio($0.metrics[part], of: $0.metrics[whole]) }
    }

    /// A number with fixed decimals.
    public static func decimal(_ header: String, _ metric: String, places: Int = 2) -> ReportColumn {
        ReportColumn(header) { $0.metrics[metric].map { Format.decimal($0, places: places) } ?? "—" }
    }
}

/// Everything an experiment declares: its question, flags, variants and findings, and how its
/// report reads. `ExperimentMain.run(_:)` turns it into a command-line program; `ExperimentRunner`
/// runs it from tests.
public struct ExperimentDefinition: Sendable {
    /// Short name used in reports and finding ids: `runloop`.
    public var name: String
    /// The executable's name: `exp-runloop`.
    public var executable: String
    /// The question the experiment answers, in one line.
    public var question: String
    /// A paragraph for `--help`: what the default run does and why its numbers were chosen.
    public var about: String
    /// The experiment's own flags (the common ones are added by the harness).
    public var flags: [FlagSpec]
    public var variants: [Variant]
    public var findings: [Finding]
    /// Columns of the terminal table after `variant` and `outcome`.
    public var columns: [ReportColumn]
    /// How many child trials may run at once by default (`--jobs` overrides).
    var defaultJobs: Int
    /// Extra terminal sections after the table (charts, event timelines).
    var extraSections: @Sendable (ExperimentReport) -> [String]
    /// The variants a run covers when `--variant` is not given; by default every variant that
    /// is `includedByDefault`. The options allow plans that depend on flags.
    public var defaultPlan: @Sendable (ParsedOptions, [Variant]) -> [String]
    /// The experiment's performance targets (`lab bench` measures each on a run of its own).
    public var performanceBars: [PerformanceBar]
    /// The experiment's parameter axis, if it has one (see `Sweep`).
    public var sweep: Sweep?
    /// The experiment's typed parameters: built once per process from the options (its `init`
    /// also checks that the flags make sense together).
    public var parameters: any ExperimentParameters.Type = NoParameters.self

    /// The typed parameters of a run with `options`; throws the parameters' `UsageError`.
    public func parameters(_ options: ParsedOptions) throws -> any ExperimentParameters {
        _ = try sweep?.sizes(options)
        return try parameters.init(options)
    }

    /// The claims of single variants (in variant order), then the findings that compare
    /// variants: every id the report's `findings` may hold.
    public var findingIDs: [String] {
        variants.compactMap(\.claim?.id) + findings.map(\.id) + (sweep?.findings.map(\.id) ?? [])
    }

    public init(
        name: String, executable: String, question: String, about: String,
        flags: [FlagSpec], variants: [Variant], findings: [Finding],
        columns: [ReportColumn] = [], defaultJobs: Int = 1,
        extraSections: @escaping @Sendable (ExperimentReport) -> [String] = { _ in [] },
        defaultPlan: @escaping @Sendable (ParsedOptions, [Variant]) -> [String] = { _, variants in
            variants.filter(\.includedByDefault).map(\.name)
        },
        performanceBars: [PerformanceBar] = [],
        sweep: Sweep? = nil,
        parameters: any ExperimentParameters.Type = NoParameters.self
    ) {
        self.parameters = parameters
        self.name = name
        self.executable = executable
        self.question = question
        self.about = about
        self.flags = flags
        self.variants = variants
        self.findings = findings
        self.columns = columns
        self.defaultJobs = defaultJobs
        self.extraSections = extraSections
        self.defaultPlan = defaultPlan
        self.performanceBars = performanceBars
        self.sweep = sweep
    }

    public func variant(named name: String) -> Variant? { variants.first { $0.name == name } }

    /// The variants a run with `options` covers, by name: `--variant`'s, or the default plan as
    /// the run's `parameters` adjust it.
    public func plan(_ options: ParsedOptions, _ parameters: any ExperimentParameters) -> [String] {
        let given = options.list("variant")
        return given.isEmpty ? parameters.plan(defaultPlan(options, variants)) : given
    }

    /// The experiment's flags plus the common ones every experiment shares.
    var allFlags: [FlagSpec] {
        [
            FlagSpec("help", .toggle, help: "print this help and exit"),
            FlagSpec(
                "json", .toggle, help: "write the schema-1 JSON report to stdout (the human report goes to stderr)"),
            FlagSpec(
                "quick", .toggle, help: "scaled-down parameters: the same findings in a few seconds", reportKey: "quick"
            ),
            FlagSpec(
                "variant", .list(variants.map(\.name)), help: "run only these variants (default: the standard set)"),
            FlagSpec(
                "trials", .integer(range: 1...100, default: 1, quick: nil),
                help: "run each variant N times and count the outcomes", reportKey: "trials"),
            FlagSpec(
                "jobs", .integer(range: 1...16, default: defaultJobs, quick: nil),
                help: "child trials that may run at once"),
            FlagSpec(
                "child-variant", .choice(variantNames, default: ""),
                help: "internal: run one trial of a variant in this process, result on stdout", valueName: "NAME",
                hidden: true),
        ] + flags + (sweep.map { [$0.flagSpec] } ?? [])
    }

    /// Every variant's name, the sweep's family included (once each).
    var variantNames: [String] {
        var names = variants.map(\.name)
        for v in sweep?.variants ?? [] where !names.contains(v.name) { names.append(v.name) }
        return names
    }

    public var parser: CommandLineParser { CommandLineParser(program: executable, flags: allFlags) }

    /// The report's `parameters`: every flag with a report key, at its effective value. In a
    /// sweep, the flag each point sets to its size is left out (the sizes are the sweep's own
    /// key) and the flags every point runs with (`Sweep.pointFlags`) have those values: the
    /// command line's defaults for them describe no trial that ran.
    func reportParameters(_ options: ParsedOptions) -> [String: ParameterValue] {
        var parameters: [String: ParameterValue] = [:]
        let sweeping = sweep.flatMap { options.text($0.flag) == nil ? nil : $0 }
        for flag in allFlags where flag.name != sweeping?.parameter {
            guard let key = flag.reportKey, let value = sweeping?.pointFlags[flag.name] ?? options.values[flag.name]
            else { continue }
            switch value {
            case .toggle(let b): parameters[key] = .flag(b)
            case .integer(let n): parameters[key] = .number(Double(n))
            case .decimal(let d): parameters[key] = .number(d)
            case .word(let w): parameters[key] = .text(w)
            case .list(let l): parameters[key] = .text(l.joined(separator: ","))
            case .text(let t): if let t { parameters[key] = .text(t) }
            }
        }
        return parameters
    }

    /// The arguments that make a child see the same effective options: every experiment flag
    /// at its effective value, plus `--quick` if set.
    func childArguments(_ options: ParsedOptions, variant: String) -> [String] {
        var arguments = ["--child-variant", variant]
        if options.quick { arguments.append("--quick") }
        for flag in flags + (sweep.map { [$0.flagSpec] } ?? []) {
            guard let value = options.values[flag.name] else { continue }
            switch value {
            case .toggle(let b): if b { arguments.append("--\(flag.name)") }
            case .integer(let n): arguments += ["--\(flag.name)", String(n)]
            case .decimal(let d): arguments += ["--\(flag.name)", String(d)]
            case .word(let w): arguments += ["--\(flag.name)", w]
            case .list(let l): if !l.isEmpty { arguments += ["--\(flag.name)", l.joined(separator: ",")] }
            case .text(let t): if let t { arguments += ["--\(flag.name)", t] }
            }
        }
        return arguments
    }
}
