import LabHarness

/// `results.md`: the same content as the HTML page in Markdown, for the notes; charts are
/// linked as the standalone SVG files next to it.
enum MarkdownPage {
    static func render(_ document: LabDocument, catalog: LabCatalog, source: String) -> String {
        var md: [String] = []
        let p = document.platform
        md.append("# Runloop Lab results")
        md.append("")
        md.append("\(p.os), \(p.cpus) cpus, swift \(p.swift) · lab \(document.labVersion)" + (document.quick ? " · quick run" : "")
                  + " · \(Format.seconds(document.elapsedSeconds)) · from `\(source)`")
        md.append("")
        if !document.complete { md.append("**Incomplete run**: it was interrupted or an experiment left no report.\n") }
        let summary = Verdicts(document)
        md.append("**\(summary.reproduced) of \(summary.applicable)** applicable findings reproduced.")
        for report in document.experiments {
            let entry = catalog.entry(named: report.experiment)
            md.append("")
            md.append("## \(entry?.definition.executable ?? report.experiment)")
            md.append("")
            if let question = entry?.definition.question { md.append("*\(question)*\n") }
            md.append("| finding | verdict | measured |")
            md.append("|---|---|---|")
            for f in report.findings {
                let verdict = !f.applicable ? "not applicable" : (f.reproduced ? "reproduced" : "**not reproduced**")
                md.append("| `\(f.id)` | \(verdict) | \(cell(f.summary)) |")
            }
            md.append("")
            let columns = entry?.definition.columns ?? []
            md.append("| variant | outcome |" + columns.map { " \(cell($0.header)) |" }.joined())
            md.append("|---|---|" + String(repeating: "---:|", count: columns.count))
            for v in report.variants {
                md.append("| `\(v.name)` | \(v.outcome) |" + columns.map { " \(cell($0.value(v))) |" }.joined())
            }
            md.append(contentsOf: StackPageSection.markdown(report))
            let charts = ChartSelection.charts(for: report)
            if !charts.isEmpty {
                md.append("")
                for chart in charts { md.append("![\(chart.title)](charts/\(chart.id).svg)") }
            }
        }
        for failure in document.failures {
            md.append("")
            md.append("## \(failure.experiment)")
            md.append("")
            md.append("No report: \(failure.outcome). \(cell(failure.evidence))")
        }
        return md.joined(separator: "\n") + "\n"
    }

    private static func cell(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }
}

import Foundation
