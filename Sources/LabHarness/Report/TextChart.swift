/// Small charts for the terminal, drawn with block characters.
public enum TextChart {
    /// A step chart of `points` (x ascending) in `height` rows of `width` columns, with the
    /// y axis labelled at the top and bottom and the x range underneath. The y axis runs from
    /// the lowest value (or from zero with `fromZero`), so a climb from 5 to 11 fills the
    /// chart instead of its top third.
    ///
    ///     257 ┤                     ▄▄▄████
    ///         ┤             ▄▄▄█████████████
    ///       3 ┤▁▁▂▂▃▃▄▄▅▅███████████████████
    ///          0 s                     12 s
    public static func timeline(
        _ points: [(x: Double, y: Double)], width: Int = 60, height: Int = 6,
        xUnit: String = "s", fromZero: Bool = false
    ) -> [String] {
        guard let first = points.first, let last = points.last, height >= 1, width >= 2 else { return [] }
        let xs = (first.x, max(last.x, first.x + 1e-9))
        let yMax = points.map(\.y).max() ?? 0
        let lowest = points.map(\.y).min() ?? 0
        // Start one step below the lowest value, so the lowest level still shows as a bar.
        let yMin = fromZero ? min(0, lowest) : lowest - max((yMax - lowest) / Double(height * 2), 0.5)
        let span = max(yMax - yMin, 1e-9)
        // The value of each column: the highest y among the points that fall into it,
        // carried forward through columns without points (a step chart).
        var columns = [Double?](repeating: nil, count: width)
        for p in points {
            let c = min(width - 1, Int((p.x - xs.0) / (xs.1 - xs.0) * Double(width - 1)))
            columns[c] = max(columns[c] ?? -.infinity, p.y)
        }
        var carry = points[0].y
        let values: [Double] = columns.map { v in
            if let v { carry = v }; return carry
        }
        let blocks: [Character] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
        let top = Format.count(yMax.rounded())
        let bottom = Format.count(fromZero ? yMin.rounded() : lowest.rounded())
        let labelWidth = max(top.count, bottom.count)
        var rows: [String] = []
        for row in (0..<height).reversed() {
            var line = ""
            for v in values {
                let filled = (v - yMin) / span * Double(height)  // in rows
                let level = filled - Double(row)
                line.append(blocks[Int((min(max(level, 0), 1) * 8).rounded())])
            }
            let label = row == height - 1 ? top : (row == 0 ? bottom : "")
            rows.append(pad(label, to: labelWidth, right: true) + " ┤" + line)
        }
        let left = Format.count(xs.0.rounded()) + " \(xUnit)"
        let right = Format.decimal(last.x, places: last.x < 10 ? 1 : 0) + " \(xUnit)"
        let gap = max(1, width - left.count - right.count)
        rows.append(String(repeating: " ", count: labelWidth + 2) + left + String(repeating: " ", count: gap) + right)
        return rows
    }
}
