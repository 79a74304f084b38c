/// The terminal report: a header, an aligned table of variants, the experiment's own sections,
/// and one verdict line per finding. Built to be read off a projector: few columns, units on
/// every number, verdicts in words as well as colour.
public enum HumanReport {
    /// The report as text, every line wrapped to `width` columns (default: `Terminal.width()`,
    /// which honours `COLUMNS`); see `TextWrap` for how lines break.
    public static func render(
        _ report: ExperimentReport, definition: ExperimentDefinition,
        elapsed: Seconds? = nil, style: Style = Style(enabled: false), width: Int? = nil
    ) -> String {
        let width = width ?? Terminal.width(fd: 1)
        var lines: [String] = []
        lines += TextWrap.wrap(
            style.bold("\(definition.executable): \(definition.question)"), width: width, indent: "  ")
        let parameters = definition.allFlags.compactMap { flag -> String? in
            guard let key = flag.reportKey, let value = report.parameters[key],
                flag.name != "quick", flag.name != "trials" || value.number != 1
            else { return nil }
            return "\(flag.name) \(value)" + (flag.reportKey?.hasSuffix("_s") == true ? " s" : "")
        }
        let quick = report.parameters["quick"] == .flag(true) ? " (quick)" : ""
        lines += TextWrap.wrap(
            style.dim(
                parameters.joined(separator: " · ") + quick
                    + "   [\(report.platform.os), \(report.platform.cpus) cpus, swift \(report.platform.swift)]"),
            width: width, indent: "  ")
        lines.append("")
        lines.append(contentsOf: table(report, definition: definition, style: style, width: width))
        lines.append(contentsOf: StackSection.lines(report, style: style, width: width))
        lines.append(contentsOf: SweepSection.lines(report, definition: definition, width: width))
        lines.append(contentsOf: sections(report, definition: definition, width: width))

        lines.append("")
        lines.append(contentsOf: verdicts(report, style: style, width: width))
        let skipped = definition.findingIDs.filter { id in !report.findings.contains { $0.id == id } }
        if !skipped.isEmpty {
            lines += TextWrap.wrap(
                style.dim("  not evaluated (needs variants that did not run): " + skipped.joined(separator: ", ")),
                width: width)
        }
        let applicable = report.findings.filter(\.applicable)
        let reproduced = applicable.filter(\.reproduced).count
        var footer = "\(reproduced) of \(applicable.count) findings reproduced"
        let unjudged = report.unjudgedFindings.count
        if unjudged > 0 { footer += ", \(unjudged) not judged" }
        if let elapsed { footer += " in \(Format.seconds(elapsed))" }
        lines.append("")
        lines.append(reproduced == applicable.count && !report.judgedNothing ? style.green(footer) : style.red(footer))
        if report.judgedNothing {
            lines.append(
                contentsOf: TextWrap.wrap(
                    style.red(
                        "no finding was judged: the variants that ran cover no finding that applies to this run (\(exitWords(report))); --help lists what each finding needs"
                    ), width: width, indent: "  "))
        }
        lines.append(
            contentsOf: machineLines(report, style: style).flatMap { TextWrap.wrap($0, width: width, indent: "  ") })
        lines.append(
            contentsOf: forbiddenLines(report, definition: definition, style: style).flatMap {
                TextWrap.wrap($0, width: width, indent: "  ")
            })
        return lines.joined(separator: "\n") + "\n"
    }

    /// The closing line of a run the machine broke: which outcomes, so that "not judged" is
    /// never read as "not reproduced" (exit 1, for that reason).
    public static func machineLines(_ report: ExperimentReport, style: Style) -> [String] {
        let unseen = report.unseenMechanismVariants.map { v in
            style.yellow(
                "not judged: \(v.name) did not see its mechanism (\(v.mechanism?.what ?? "")); "
                    + "the findings that need it are neither reproduced nor refuted")
        }
        let broken = report.machineVariants
        guard !broken.isEmpty else { return unseen }
        let outcomes = Set(broken.map(\.outcome.rawValue)).sorted().joined(separator: ", ")
        let onlyInterrupted = broken.allSatisfy { $0.outcome == .interrupted }
        let who = onlyInterrupted ? "the run was interrupted" : "the machine, not the program"
        return [
            style.yellow(
                "not judged: \(broken.count) of \(report.variants.count) variants ended \(outcomes) (\(who)); "
                    + "the findings that need them are neither reproduced nor refuted (\(exitWords(report)))")
        ] + unseen
    }

    /// The exit status a report's closing lines name: 130 when the run was interrupted (it
    /// exits so, whatever its findings), else 1.
    static func exitWords(_ report: ExperimentReport) -> String {
        ChildProcess.isInterrupted || report.variants.contains(where: { $0.outcome == .interrupted })
            ? "exit 130, interrupted" : "exit 1"
    }

    /// The experiment's own sections (charts, timelines, step lists), each after a blank line,
    /// drawn for `width` columns (`ReportWidth`) and wrapped to it: a line a section could not
    /// fit breaks at spaces under its own indent.
    public static func sections(_ report: ExperimentReport, definition: ExperimentDefinition, width: Int) -> [String] {
        let sections = ReportWidth.$columns.withValue(width) { definition.extraSections(report) }
        var lines: [String] = []
        for section in sections where !section.isEmpty {
            lines.append("")
            lines += TextWrap.wrapLines(section, width: width)
        }
        return lines
    }

    /// One line per variant that ended forbidden, with what its declaration says that outcome
    /// means: such a run exits 1 even when every finding reproduced.
    static func forbiddenLines(_ report: ExperimentReport, definition: ExperimentDefinition, style: Style) -> [String] {
        report.forbiddenVariants.map { v in
            let meaning =
                definition.variant(named: v.name)?.expectations.meaning(of: v.outcome)
                ?? "an outcome the variant does not declare"
            return style.red("forbidden outcome: \(v.name) ended \(v.outcome) (\(meaning))")
        }
    }

    /// The variant table: `variant`, `outcome`, then the experiment's columns, fitted to
    /// `width` (`TextTable`: the widest columns wrap first).
    public static func table(
        _ report: ExperimentReport, definition: ExperimentDefinition, style: Style,
        width: Int = Terminal.defaultColumns
    ) -> [String] {
        // A sweep's rows grade its family; the figures are in the sweep's own table.
        let columns = report.sweep == nil ? definition.columns : []
        let headers = ["variant", "outcome"] + columns.map(\.header)
        var rows: [[String]] = report.variants.map { v in
            var outcome = v.outcome.rawValue
            if let trials = v.trials, trials.count > 1 || (trials.values.first ?? 1) > 1 {
                outcome +=
                    " " + trials.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: ",")
            }
            return [v.name, outcome] + columns.map { $0.value(v) }
        }
        rows.insert(headers, at: 0)
        let table = TextTable(rows: rows, rightAligned: Set(2..<headers.count))
        return table.render(width: width) { r, c, text in
            if r == 0 { return style.dim(text) }
            if c == 1 { return style.grade(text, report.variants[r - 1].grade) }
            return text
        }
    }

    /// Where a verdict's summary starts when continuation lines align under it: at least this
    /// many columns must be left for its words, else continuation lines sit just under the id.
    static let verdictRoom = 40

    /// One line per finding: mark, id, verdict word, summary; a summary too long for `width`
    /// continues on lines indented under the finding (under the summary when that leaves
    /// `verdictRoom` columns, else two columns past the id's start).
    public static func verdicts(
        _ report: ExperimentReport, style: Style, width: Int = Terminal.defaultColumns
    ) -> [String] {
        let idWidth = report.findings.map { displayWidth($0.id) }.max() ?? 0
        let summaryColumn = 4 + idWidth + 2 + 10 + 2
        let indent = String(repeating: " ", count: width - summaryColumn >= verdictRoom ? summaryColumn : 6)
        return report.findings.flatMap { f in
            let (mark, word): (String, String)
            if !f.applicable {
                (mark, word) = (style.dim("–"), style.dim("n/a       "))
            } else if f.notJudged {
                (mark, word) = (style.yellow("?"), style.yellow("NOT JUDGED"))
            } else if f.reproduced {
                (mark, word) = (style.green("✓"), style.green("reproduced"))
            } else {
                (mark, word) = (style.red("✗"), style.red("NOT REPRO."))
            }
            return TextWrap.wrap(
                "  \(mark) \(pad(f.id, to: idWidth))  \(word)  \(f.summary)", width: width, indent: indent)
        }
    }
}

/// `--help`, generated from the declaration.
public enum HelpText {
    public static func render(_ definition: ExperimentDefinition) -> String {
        var lines: [String] = []
        lines.append("\(definition.executable): \(definition.question)")
        lines.append("")
        lines.append("usage: \(definition.executable) [options]")
        lines.append("")
        lines.append(contentsOf: wrap(definition.about, width: 88))
        lines.append("")
        lines.append("options:")
        let own = definition.flags + (definition.sweep.map { [$0.flagSpec] } ?? [])
        lines.append(contentsOf: flagLines(own.filter { !$0.hidden }))
        lines.append("")
        lines.append("common options:")
        let common = definition.allFlags.filter { flag in !flag.hidden && !own.contains { $0.name == flag.name } }
        lines.append(contentsOf: flagLines(common))
        lines.append("")
        // The default run is what the experiment's plan gives with every flag at its default
        // (a plan may add variants that are not included by default), not just the flags.
        let planned =
            (try? definition.parser.parse([])).flatMap { options in
                (try? definition.parameters(options)).map { Set(definition.plan(options, $0)) }
            }
            ?? Set(definition.variants.filter(\.includedByDefault).map(\.name))
        lines.append(
            "variants (default run: \(definition.variants.allSatisfy { planned.contains($0.name) } ? "all" : "all but those marked *")):"
        )
        let vWidth = definition.variants.map { $0.name.count }.max() ?? 0
        for v in definition.variants {
            let star = planned.contains(v.name) ? " " : "*"
            lines.append("  \(pad(v.name, to: vWidth))\(star) \(v.summary)")
            for e in v.expectations {
                lines.append(
                    "  \(String(repeating: " ", count: vWidth + 2))  \(e.grade.rawValue) \(e.outcome): \(e.meaning)")
            }
        }
        lines.append("")
        lines.append("findings:")
        for v in definition.variants {
            guard let claim = v.claim else { continue }
            lines.append("  \(claim.id)   (variant \(v.name), when its outcome is expected and its mechanism seen)")
            lines.append("      \(claim.text)")
        }
        for f in definition.findings {
            lines.append("  \(f.id)   (needs \(f.needs.joined(separator: ", ")))")
            lines.append("      \(f.claim)")
        }
        for f in definition.sweep?.findings ?? [] {
            lines.append(
                "  \(f.id)   (needs --\(definition.sweep?.flag ?? "") with \(f.needs.joined(separator: ", ")))")
            lines.append("      \(f.claim)")
        }
        lines.append("")
        lines.append(
            "exit status: 0 every applicable finding reproduced and no variant ended forbidden, 1 one did not or one did (or the variants run judged no finding), 64 bad usage, 74 the report could not be written, 130 interrupted"
        )
        return lines.joined(separator: "\n") + "\n"
    }

    static func flagLines(_ flags: [FlagSpec]) -> [String] {
        let left = flags.map { f in f.valueName.isEmpty ? "--\(f.name)" : "--\(f.name) \(f.valueName)" }
        let width = min(left.map(\.count).max() ?? 0, 28)
        return zip(flags, left).map { f, l in
            var detail = f.help
            let extras = [f.rangeText, f.defaultText].compactMap { $0 }.filter { !$0.isEmpty }
            if !extras.isEmpty && { if case .list = f.kind { return false } else { return true } }() {
                detail += " (" + extras.joined(separator: "; ") + ")"
            }
            let gap =
                l.count > width
                ? "\n" + String(repeating: " ", count: width + 4) : String(repeating: " ", count: width - l.count + 2)
            return "  \(l)\(gap)\(detail)"
        }
    }

    /// Greedy word wrap.
    public static func wrap(_ text: String, width: Int, indent: String = "") -> [String] {
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = indent
            for word in paragraph.split(separator: " ") {
                if line.count + word.count + 1 > width && line.count > indent.count {
                    lines.append(line)
                    line = indent
                }
                line += (line.count > indent.count ? " " : "") + word
            }
            lines.append(line)
        }
        return lines
    }
}
