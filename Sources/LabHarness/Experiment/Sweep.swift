/// A parameter axis over a family of variants, like swift-testing's `@Test(arguments:)`: with
/// `--FLAG N,N,...` the harness runs every variant of the family (or those `--variant` picks) at
/// every size, each point in a child process of its own and one point at a time (points sharing
/// the cores would blur each other's figures), and reports the points (schema 1's top-level
/// `sweep` array), a table and a log-log chart. No experiment names live here.
///
/// A point is an ordinary trial of the variant with the integer flag `parameter` set to the
/// point's size, so a body reads its size from its parameters as in any run; `--trials N`
/// repeats each point and its metrics are the median, as for any variant. The family's variants
/// also get one row each in `variants`, graded over their points (the worst grade any point got),
/// so a forbidden outcome at one point fails the run. The findings that read the points are the
/// sweep's own: they are judged only on a sweep, and `FindingInputs.points(of:)` gives them a
/// variant's points, smallest size first.
public struct Sweep: Sendable {
    /// The flag that lists the sizes: `sweep` for `--sweep 10,100,1000`.
    public var flag: String
    /// The whole-number flag each point sets to its size (`tasks`); refused beside `flag`.
    var parameter: String
    /// The sizes a point may have.
    public var range: ClosedRange<Int>
    /// At most this many sizes in one sweep.
    var maxSizes: Int
    /// The flag's help: what a sweep runs.
    public var help: String
    /// The family, in table order. A variant's name here is the point's `variant`; it may be a
    /// top-level variant too, or run only in a sweep.
    public var variants: [Variant]
    /// The claims that compare points.
    public var findings: [Finding]
    /// What the table's first two columns are called (`design`, `requests`).
    public var headers: (variant: String, size: String)
    /// The table's further columns, read from each point's metrics.
    public var columns: [ReportColumn]
    /// The chart's metric (log rows) against the size (log columns), and how its values read.
    public var chart: (metric: String, title: String, format: @Sendable (Double) -> String)?
    /// Lines under the table, from the points (what the experiment wants said about all of them).
    public var notes: @Sendable ([SweepPoint]) -> [String]
    /// Flags whose value every point's variant runs with, whatever their default (exp-runloop's
    /// designs race async callers): a sweep's report says these, not the defaults it never ran.
    var pointFlags: [String: ParsedOptions.Value]

    public init(
        flag: String, parameter: String, range: ClosedRange<Int>, maxSizes: Int = 8, help: String,
        variants: [Variant], findings: [Finding], headers: (variant: String, size: String),
        columns: [ReportColumn], chart: (metric: String, title: String, format: @Sendable (Double) -> String)? = nil,
        notes: @escaping @Sendable ([SweepPoint]) -> [String] = { _ in [] },
        pointFlags: [String: ParsedOptions.Value] = [:]
    ) {
        self.pointFlags = pointFlags
        self.flag = flag
        self.parameter = parameter
        self.range = range
        self.maxSizes = maxSizes
        self.help = help
        self.variants = variants
        self.findings = findings
        self.headers = headers
        self.columns = columns
        self.chart = chart
        self.notes = notes
    }

    /// The flag, as `--help` lists it and the report's `parameters` key it goes under.
    var flagSpec: FlagSpec {
        FlagSpec(flag, .text(default: nil), help: help, valueName: "N,N,...", reportKey: flag)
    }

    /// The sizes `options` asks for, ascending and once each; empty when the flag is absent.
    /// Throws a one-line usage error for a size out of range, too many sizes, or a flag the sweep
    /// sets itself (`--variant`, `parameter`); a point's child carries them, and is not checked.
    func sizes(_ options: ParsedOptions) throws -> [Int] {
        guard let text = options.text(flag) else { return [] }
        let valid = "sizes from \(range.lowerBound) to \(range.upperBound), comma-separated, such as 10,100,1000"
        var sizes: [Int] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false).map({
            $0.trimmingCharacters(in: .whitespaces)
        }) {
            guard let n = Int(item), range.contains(n) else {
                throw UsageError("--\(flag) takes \(valid), not '\(UsageError.echo(item))'")
            }
            if !sizes.contains(n) { sizes.append(n) }
        }
        guard sizes.count <= maxSizes else { throw UsageError("--\(flag) takes at most \(maxSizes) sizes (\(valid))") }
        guard !options.wasGiven("child-variant") else { return sizes.sorted() }
        if let other = options.list("variant").first(where: { name in !variants.contains { $0.name == name } }) {
            throw UsageError(
                "--\(flag) runs \(variants.map(\.name).joined(separator: ", ")) at each size; --variant may pick among them, not \(other)"
            )
        }
        if options.wasGiven(parameter) {
            throw UsageError("--\(flag) sets --\(parameter) itself, point by point; leave out --\(parameter)")
        }
        return sizes.sorted()
    }

    /// The family's variants a run with `options` sweeps: those `--variant` picks, else all.
    func family(_ options: ParsedOptions) -> [Variant] {
        let picked = options.list("variant")
        return picked.isEmpty ? variants : variants.filter { picked.contains($0.name) }
    }

    /// The options of the point `variant` at `size`: the run's, with `parameter` set to the
    /// size and `flag` to that size alone (which tells the child it runs a point).
    func pointOptions(_ options: ParsedOptions, variant: String, size: Int) -> ParsedOptions {
        var point = options
        point.set(flag, .text(String(size)))
        point.set(parameter, .integer(size))
        point.set("child-variant", .word(variant))
        return point
    }

    /// The family's variant a point child runs (`nil` when `options` are not a point's).
    func pointVariant(named name: String, _ options: ParsedOptions) -> Variant? {
        options.text(flag) == nil ? nil : variants.first { $0.name == name }
    }

    /// A family variant's row in `variants`: its points' outcomes, graded by the worst of them
    /// (a point the machine broke, or one that did not see its mechanism, leaves it ungraded).
    static func summary(_ variant: Variant, _ points: [(size: Int, report: VariantReport)]) -> VariantReport {
        let reports = points.map(\.report)
        let broken = reports.first { $0.outcome.judgesNothing }
        let unseen = reports.first { $0.mechanism?.seen == false }
        let worst = reports.max { ($0.grade ?? .expected) < ($1.grade ?? .expected) }
        let chosen = broken ?? unseen ?? worst
        let evidence = points.map { p in
            "\(Format.count(Double(p.size))): \(p.report.outcome)"
                + (p.report.outcome == .completed ? "" : " (\(p.report.evidence ?? ""))")
        }.joined(separator: ", ")
        let mechanism: Evidence? =
            unseen?.mechanism
            ?? points.last.flatMap { last in
                last.report.mechanism.map { .seen("at \(Format.count(Double(last.size))): \($0.what)") }
            }
        return VariantReport(
            name: variant.name, outcome: chosen?.outcome ?? .failed,
            grade: broken != nil || unseen != nil ? nil : (chosen?.grade ?? .forbidden),
            evidence: "\(points.count) points, each in a process of its own: \(evidence)", mechanism: mechanism)
    }
}

extension FindingInputs {
    /// A sweep's points of `variant`, smallest size first (empty outside a sweep).
    public func points<Name: RawRepresentable<String>>(of variant: Name) -> [SweepPoint] {
        sweep.filter { $0.variant == variant.rawValue }.sorted { $0.size < $1.size }
    }
}

extension ExperimentRunner {
    /// A sweep's run: every variant of the family at every size (sizes ascending, so the
    /// variants at one size run close together in time), each point a child trial of its own,
    /// one at a time, repeated `--trials` times.
    static func runSweep(
        _ definition: ExperimentDefinition, _ sweep: Sweep, sizes: [Int], options: ParsedOptions,
        parameters: any ExperimentParameters, executable: String, prefix: [String], status: RunStatus?
    ) -> ExperimentReport {
        struct Item { var variant: Variant; var size: Int; var options: ParsedOptions }
        let family = sweep.family(options)
        let plan = sizes.flatMap { size in
            family.map {
                Item(variant: $0, size: size, options: sweep.pointOptions(options, variant: $0.name, size: size))
            }
        }
        let trials = options.int("trials")
        status?.planned(plan.count * trials)
        var index = 0
        var reports: [Int: VariantReport] = [:]
        for (i, item) in plan.enumerated() {
            var records: [VariantRecord] = []
            // Each point's own parameters (its size), built once for its trials.
            guard let point = try? definition.parameters(item.options) else { continue }
            for _ in 0..<trials {
                defer { index += 1 }
                if ChildProcess.isInterrupted {
                    records.append(
                        VariantRecord(outcome: .interrupted, evidence: "not started: the run was interrupted"))
                    continue
                }
                let trial = index
                status?.started(
                    trial, variant: "\(item.variant.name) at \(Format.count(Double(item.size)))",
                    total: item.variant.trialTime(point).progressTotal)
                records.append(
                    runTrial(
                        definition, item.variant, options: item.options, parameters: point,
                        executable: executable, prefix: prefix
                    ) { status?.progressed(trial, $0) })
                status?.finished(trial)
            }
            reports[i] = aggregate(item.variant, records)
        }
        // The table's order: the family's order, sizes ascending.
        var points: [SweepPoint] = []
        var rows: [VariantReport] = []
        for variant in family {
            let mine = plan.indices.filter { plan[$0].variant.name == variant.name }.compactMap { i in
                reports[i].map { (plan[i].size, $0) }
            }
            points += mine.map { SweepPoint(variant: variant.name, size: $0.0, metrics: $0.1.metrics) }
            rows.append(Sweep.summary(variant, mine.map { (size: $0.0, report: $0.1) }))
        }
        let byName = Dictionary(rows.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let platform = PlatformInfo.current
        let findings = sweep.findings.compactMap {
            $0.report(variants: byName, options: options, platform: platform, parameters: parameters, sweep: points)
        }
        return ExperimentReport(
            experiment: definition.name, platform: platform, parameters: definition.reportParameters(options),
            variants: rows, findings: findings, sweep: points.isEmpty ? nil : points)
    }
}
