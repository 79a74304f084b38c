import LabHarness

/// `results.md`: the same content as the HTML page in Markdown, for the notes; charts are
/// linked as the standalone SVG files next to it.
///
/// Every string from the results file is text, never markup: Markdown renders raw HTML, so a
/// name such as `<script>` is written as entities, Markdown's own punctuation is escaped, and a
/// newline cannot end a table row early.
enum MarkdownPage {
    /// `charts`: each experiment's charts in the order of `document.experiments` (see `HTMLPage`).
    static func render(_ document: LabDocument, catalog: LabCatalog, source: String, charts: [[Chart]]? = nil) -> String
    {
        let charts = charts ?? document.experiments.map(ChartSelection.charts(for:))
        var md: [String] = []
        let p = document.platform
        md.append("# Runloop Lab results")
        md.append("")
        md.append(
            "\(text(p.os)), \(p.cpus) cpus, swift \(text(p.swift)) · lab \(text(document.labVersion))"
                + (document.quick ? " · quick run" : "")
                + " · \(Format.seconds(document.elapsedSeconds)) · from \(code(source))")
        md.append("")
        if !document.complete { md.append("**Incomplete run**: it was interrupted or an experiment left no report.\n") }
        let summary = Verdicts(document)
        md.append("**\(summary.reproduced) of \(summary.applicable)** applicable findings reproduced.")
        for (position, report) in document.experiments.enumerated() {
            let entry = catalog.entry(named: report.experiment)
            md.append("")
            md.append("## \(text(entry?.definition.executable ?? report.experiment))")
            md.append("")
            if let question = entry?.definition.question { md.append("*\(text(question))*\n") }
            md.append("| finding | verdict | measured |")
            md.append("|---|---|---|")
            for f in report.findings {
                let verdict =
                    !f.applicable
                    ? "not applicable"
                    : (f.reproduced ? "reproduced" : (f.notJudged ? "not judged" : "**not reproduced**"))
                md.append("| \(code(f.id)) | \(verdict) | \(text(f.summary)) |")
            }
            md.append("")
            let columns = entry?.definition.columns ?? []
            md.append("| variant | outcome |" + columns.map { " \(text($0.header)) |" }.joined())
            md.append("|---|---|" + String(repeating: "---:|", count: columns.count))
            for v in report.variants {
                md.append(
                    "| \(code(v.name)) | \(text(v.outcome.rawValue)) |"
                        + columns.map { " \(text($0.value(v))) |" }.joined())
            }
            md.append(contentsOf: StackPageSection.markdown(report))
            md.append(contentsOf: SweepPageSection.markdown(report))
            if !charts[position].isEmpty {
                md.append("")
                for chart in charts[position] { md.append("![\(text(chart.title))](charts/\(chart.id).svg)") }
            }
        }
        for failure in document.failures {
            md.append("")
            md.append("## \(text(failure.experiment))")
            md.append("")
            md.append("No report: \(text(failure.outcome)). \(text(failure.evidence))")
        }
        return md.joined(separator: "\n") + "\n"
    }

    /// Plain text for a line or a table cell: HTML's specials as entities, Markdown's
    /// punctuation escaped, line breaks and other control characters as spaces.
    static func text(_ raw: String) -> String {
        var out = ""
        out.reserveCapacity(raw.utf8.count)
        for scalar in raw.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\\", "`", "*", "_", "[", "]", "|", "~":
                out += "\\" + String(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F { out += " " } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }

    /// An identifier in a code span when it is made of plain characters (a code span cannot
    /// escape a backtick); anything else as escaped text.
    static func code(_ raw: String) -> String {
        let plain =
            !raw.isEmpty
            && raw.unicodeScalars.allSatisfy {
                $0.isASCII
                    && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.:/ ".unicodeScalars.contains($0))
            }
        return plain ? "`\(raw)`" : text(raw)
    }
}
