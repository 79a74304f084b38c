/// A terminal report section that lists each variant's events (its `context.event` log) in
/// order, with their times since the variant started: the printed timeline of the trial, for
/// experiments whose lesson is an order of events. Empty when no variant logged any.
public enum EventSection {
    public static func lines(_ report: ExperimentReport, width: Int = ReportWidth.current) -> String {
        let rows = report.variants.compactMap { v -> (String, String)? in
            guard let events = v.events, !events.isEmpty else { return nil }
            return (v.name, events.map { "\($0.label) \(Format.seconds($0.t))" }.joined(separator: " · "))
        }
        guard !rows.isEmpty else { return "" }
        let nameWidth = rows.map(\.0.count).max() ?? 0
        let indent = String(repeating: " ", count: nameWidth + 4)
        return
            (["events (t since the variant started)"]
            + rows.flatMap { name, text in
                TextWrap.wrap(
                    "  " + name.padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  " + text, width: width,
                    indent: indent)
            }).joined(separator: "\n")
    }

    /// The same log as one table per variant, each event with its time, label and thread
    /// (`context.event(thread:)`), fitted to `width` (a long label or place wraps within its
    /// column): for experiments whose lesson is where each step ran.
    public static func table(_ report: ExperimentReport, title: String, width: Int = ReportWidth.current) -> String {
        var lines = [title]
        for v in report.variants {
            guard let events = v.events, !events.isEmpty else { continue }
            lines.append("  \(v.name)")
            let rows = events.map { e in [Format.decimal(e.t, places: 3) + " s", e.label, e.thread ?? ""] }
            lines += TextTable(rows: rows, rightAligned: [0], lead: "    ", hasHeader: false).render(width: width)
        }
        return lines.joined(separator: "\n")
    }
}
