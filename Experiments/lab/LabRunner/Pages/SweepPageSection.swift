import LabHarness

/// A report's sweep on the report page: one row per point (design × requests) with the figures
/// the chart cannot show at once. The metric names are schema 1's; a point that lacks one shows
/// "—", and every value is escaped like any other text from the untrusted document.
enum SweepPageSection {
    /// Column headings and the metric each one shows, with how it is written.
    static let columns: [(header: String, value: @Sendable (SweepPoint) -> String)] = [
        ("wall / timeout", { $0["wall_per_timeout"].map { Format.decimal($0, places: 3) } ?? "—" }),
        ("late p50", { $0["lateness.p50_ms"].map(Format.milliseconds) ?? "—" }),
        ("p99", { $0["lateness.p99_ms"].map(Format.milliseconds) ?? "—" }),
        ("max", { $0["lateness.max_ms"].map(Format.milliseconds) ?? "—" }),
        ("threads added", { $0["threads.added"].map(Format.count) ?? "—" }),
        ("peak MB", { $0["memory.peak_mb"].map { Format.decimal($0, places: 0) } ?? "—" }),
        ("CPU s", { $0["cpu_s"].map { Format.decimal($0, places: 2) } ?? "—" }),
    ]

    static func html(_ report: ExperimentReport) -> [String] {
        guard let points = report.sweep, !points.isEmpty else { return [] }
        var html = [
            "<h3>Sweep: each design at each number of requests, one process per point</h3>",
            "<table><tr><th>design</th><th>requests</th>" + columns.map { "<th>\(escape($0.header))</th>" }.joined()
                + "</tr>",
        ]
        for p in points {
            html.append(
                "<tr><td><code>\(escape(p.variant))</code></td><td class=\"num\">\(escape(Format.count(Double(p.size))))</td>"
                    + columns.map { "<td class=\"num\">\(escape($0.value(p)))</td>" }.joined() + "</tr>")
        }
        html.append("</table>")
        return html
    }

    static func markdown(_ report: ExperimentReport) -> [String] {
        guard let points = report.sweep, !points.isEmpty else { return [] }
        var md = [
            "", "Sweep: each design at each number of requests, one process per point.", "",
            "| design | requests |" + columns.map { " \(MarkdownPage.text($0.header)) |" }.joined(),
            "|---|---:|" + String(repeating: "---:|", count: columns.count),
        ]
        for p in points {
            md.append(
                "| \(MarkdownPage.code(p.variant)) | \(Format.count(Double(p.size))) |"
                    + columns.map { " \(MarkdownPage.text($0.value(p))) |" }.joined())
        }
        return md
    }
}
