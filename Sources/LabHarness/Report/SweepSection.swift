import Foundation

/// A sweep in the terminal (see `Sweep`): one table of its points, the experiment's notes on
/// them, and its chart metric against the size on log-log axes, so slopes read at a glance
/// from the back of a room (a slope of a decade per decade is a cost per unit of size).
enum SweepSection {
    static func lines(_ report: ExperimentReport, definition: ExperimentDefinition, width: Int) -> [String] {
        guard let sweep = definition.sweep, let points = report.sweep, !points.isEmpty else { return [] }
        var lines = ["", "sweep: each point in a process of its own"]
        var rows = [[sweep.headers.variant, sweep.headers.size] + sweep.columns.map(\.header)]
        for p in points {
            let row = VariantReport(name: p.variant, outcome: .completed, metrics: p.metrics)
            rows.append([p.variant, Format.count(Double(p.size))] + sweep.columns.map { $0.value(row) })
        }
        lines += TextTable(rows: rows, rightAligned: Set(1..<rows[0].count)).render(width: width)
        lines += sweep.notes(points).map { "  " + $0 }
        if let chart = sweep.chart {
            lines += [""] + self.chart(points, chart.metric, chart.title, chart.format, sizes: sweep.headers.size)
        }
        return lines
    }

    /// A letter per variant for the chart: its first letter not taken yet, else the first of
    /// its other letters that is free.
    static func marks(_ names: [String]) -> [String: Character] {
        var marks: [String: Character] = [:]
        for name in names where marks[name] == nil {
            let taken = Set(marks.values)
            marks[name] = name.lowercased().first { $0.isLetter && !taken.contains($0) } ?? "?"
        }
        return marks
    }

    /// `metric` (log rows, two per decade) against the size (log columns), one letter per variant.
    static func chart(
        _ points: [SweepPoint], _ metric: String, _ title: String, _ format: (Double) -> String, sizes label: String
    ) -> [String] {
        let values = points.compactMap { p in p[metric].map { (p, max($0, 0.01)) } }
        guard let lowest = values.map(\.1).min(), let highest = values.map(\.1).max() else { return [] }
        var names: [String] = []
        for p in points where !names.contains(p.variant) { names.append(p.variant) }
        let mark = marks(names)
        let sizes = Array(Set(points.map(\.size))).sorted()
        let bottom = floor(log10(lowest)), top = max(ceil(log10(highest)), bottom + 1)
        let rows = Int((top - bottom) * 2) + 1
        let columnWidth = 9
        var grid = [[Character]](repeating: [Character](repeating: " ", count: sizes.count * columnWidth), count: rows)
        for (p, value) in values {
            guard let column = sizes.firstIndex(of: p.size) else { continue }
            let row = rows - 1 - Int(((log10(value) - bottom) * 2).rounded())
            var x = column * columnWidth + columnWidth / 2
            while grid[row][x] != " " && x < (column + 1) * columnWidth - 1 { x += 1 }
            grid[row][x] = mark[p.variant] ?? "?"
        }
        var lines = ["\(title) (log-log; " + names.map { "\(mark[$0] ?? "?") \($0)" }.joined(separator: ", ") + "):"]
        for (i, row) in grid.enumerated() {
            let label = i % 2 == 0 ? format(pow(10, top - Double(i) / 2)) : ""
            lines.append(String(repeating: " ", count: max(0, 9 - label.count)) + label + " |" + String(row))
        }
        lines.append(String(repeating: " ", count: 10) + "+" + String(repeating: "-", count: sizes.count * columnWidth))
        lines.append(
            String(repeating: " ", count: 11)
                + sizes.map { c in
                    let text = Format.count(Double(c))
                    let left = (columnWidth - text.count) / 2
                    return String(repeating: " ", count: max(0, left)) + text
                        + String(repeating: " ", count: max(0, columnWidth - left - text.count))
                }.joined() + " " + label)
        return lines
    }
}
