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
}
