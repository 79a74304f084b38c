import LabHarness

/// `index.html`: one self-contained page (inline CSS and SVG; no script, no network) with, per
/// experiment, its question, the verdict on each finding, a table of variants and its charts.
enum HTMLPage {
    /// `charts` holds each experiment's charts, in the order of `document.experiments`
    /// (computed once by the caller, which also writes them as files).
    static func render(_ document: LabDocument, catalog: LabCatalog, source: String, charts: [[Chart]]? = nil) -> String
    {
        let charts = charts ?? document.experiments.map(ChartSelection.charts(for:))
        var html: [String] = []
        html.append(
            """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <title>Runloop Lab results</title>
            <style>
            body { font-family: Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 64em; color: #222; line-height: 1.4; padding: 0 1em; }
            h1 { margin-bottom: 0.2em; } h2 { margin-top: 2em; border-bottom: 1px solid #ddd; }
            .meta { color: #666; } .question { font-style: italic; }
            table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.92em; }
            th, td { border: 1px solid #ddd; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
            th { background: #f4f4f4; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
            .yes { color: #1a7f37; font-weight: bold; } .no { color: #c62828; font-weight: bold; } .na { color: #888; }
            .expected { color: #1a7f37; } .interesting { color: #9a6700; } .forbidden { color: #c62828; font-weight: bold; }
            .warn { background: #fff4e5; border: 1px solid #f0c36d; padding: 0.5em 1em; }
            figure { margin: 1em 0; } svg { max-width: 100%; height: auto; border: 1px solid #eee; }
            </style>
            </head>
            <body>
            <h1>Runloop Lab results</h1>
            """)
        let p = document.platform
        html.append(
            "<p class=\"meta\">\(escape(p.os)), \(p.cpus) cpus, swift \(escape(p.swift)) · lab \(escape(document.labVersion))"
                + (document.quick ? " · quick run" : "")
                + " · \(escape(Format.seconds(document.elapsedSeconds))) · from \(escape(source))</p>")
        if !document.complete {
            html.append(
                "<p class=\"warn\">This run is <strong>incomplete</strong>: it was interrupted or an experiment left no report.</p>"
            )
        }
        let summary = Verdicts(document)
        html.append(
            "<p><strong>\(summary.reproduced) of \(summary.applicable)</strong> applicable findings reproduced.</p>")
        html.append(
            "<ul>"
                + document.experiments.map {
                    "<li><a href=\"#\(escape($0.experiment))\">\(escape($0.experiment))</a></li>"
                }.joined() + "</ul>")

        for (position, report) in document.experiments.enumerated() {
            let entry = catalog.entry(named: report.experiment)
            html.append(
                "<h2 id=\"\(escape(report.experiment))\">\(escape(entry?.definition.executable ?? report.experiment))</h2>"
            )
            if let question = entry?.definition.question {
                html.append("<p class=\"question\">\(escape(question))</p>")
            }
            let parameters = report.parameters.sorted { $0.key < $1.key }.map { "\($0.key) = \($0.value)" }.joined(
                separator: ", ")
            html.append("<p class=\"meta\">parameters: \(escape(parameters))</p>")

            html.append("<table><tr><th>finding</th><th>verdict</th><th>measured</th></tr>")
            for f in report.findings {
                let verdict =
                    !f.applicable
                    ? "<span class=\"na\">not applicable</span>"
                    : (f.reproduced
                        ? "<span class=\"yes\">reproduced</span>"
                        : (f.notJudged
                            ? "<span class=\"na\">not judged</span>" : "<span class=\"no\">not reproduced</span>"))
                html.append(
                    "<tr><td><code>\(escape(f.id))</code></td><td>\(verdict)</td><td>\(escape(f.summary))</td></tr>")
            }
            html.append("</table>")

            let columns = entry?.definition.columns ?? []
            html.append(
                "<table><tr><th>variant</th><th>outcome</th>" + columns.map { "<th>\(escape($0.header))</th>" }.joined()
                    + (columns.isEmpty ? "<th>metrics</th>" : "") + "</tr>")
            for v in report.variants {
                let grade = v.grade?.rawValue ?? ""
                var row =
                    "<tr><td><code>\(escape(v.name))</code></td><td class=\"\(grade)\" title=\"\(escape(grade))\">\(escape(v.outcome.rawValue))</td>"
                if columns.isEmpty {
                    row +=
                        "<td>"
                        + escape(v.metrics.map { "\($0.name) \(Format.number($0.value))" }.joined(separator: ", "))
                        + "</td>"
                } else {
                    row += columns.map { "<td class=\"num\">\(escape($0.value(v)))</td>" }.joined()
                }
                html.append(row + "</tr>")
            }
            html.append("</table>")
            html.append(contentsOf: StackPageSection.html(report))
            html.append(contentsOf: SweepPageSection.html(report))

            for chart in charts[position] {
                html.append(
                    "<figure id=\"\(escape(chart.id))\">\n\(chart.svg.element)<figcaption><a href=\"charts/\(escape(chart.id)).svg\">\(escape(chart.title))</a></figcaption></figure>"
                )
            }
        }
        for failure in document.failures {
            html.append(
                "<h2>\(escape(failure.experiment))</h2><p class=\"warn\">No report: \(escape(failure.outcome)). \(escape(failure.evidence))</p>"
            )
        }
        html.append("</body>\n</html>\n")
        return html.joined(separator: "\n")
    }
}

/// Counts of findings across a document.
struct Verdicts {
    var applicable = 0
    var reproduced = 0

    init(_ document: LabDocument) {
        for f in document.experiments.flatMap(\.findings) where f.applicable {
            applicable += 1
            if f.reproduced { reproduced += 1 }
        }
    }
}
