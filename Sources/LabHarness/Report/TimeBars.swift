extension TextChart {
    /// Horizontal bars of times on one `TimeScale` taken from the longest, each followed by its
    /// note, then an axis labelled 0 and the scale's end; `title` gets that end's label. The bars
    /// get what `columns` leaves beside the names and a short note: at least 10, at most `width`.
    ///
    ///     alive (scale 0 to 500 ms)
    ///       short │ 9 µs
    ///       long  │████████████████ 502 ms
    ///             └───────────────┘
    ///             0          500 ms
    public static func timeBars(
        _ rows: [(name: String, seconds: Seconds, note: String)], width: Int = 40,
        columns: Int = ReportWidth.current, title: (_ end: String) -> String
    ) -> [String] {
        guard !rows.isEmpty else { return [] }
        let scale = TimeScale(longest: rows.map(\.seconds).max() ?? 0), end = scale.label(scale.end)
        let nameWidth = rows.map(\.name.count).max() ?? 0, margin = String(repeating: " ", count: nameWidth + 3)
        let barWidth = max(10, min(width, columns - nameWidth - 4 - 14))
        return [title(end)]
            + rows.map { row in
                "  " + row.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0) + " │"
                    + String(repeating: "█", count: Int((scale.fraction(row.seconds) * Double(barWidth)).rounded()))
                    + row.note
            }
            + [
                margin + "└" + String(repeating: "─", count: max(barWidth - 1, 0)) + "┘",
                margin + "0" + String(repeating: " ", count: max(1, barWidth - end.count)) + end,
            ]
    }
}
