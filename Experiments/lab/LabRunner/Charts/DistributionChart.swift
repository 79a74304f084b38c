import LabHarness

/// One row of dots per variant on a logarithmic axis, with the median and 99th percentile
/// marked: how late each runloop variant's timeout timers fired (or any per-item latency).
/// A log axis shows 0.1 ms and 9 s on one chart, which is the point.
struct DistributionChart {
    struct Row {
        var name: String
        var values: [Double]
        /// Items that never produced a value (timers that never fired), shown as a count.
        var missing: Int
    }

    /// Dots drawn per row at most; past it an even sample of the sorted values is drawn
    /// (the percentile marks and the count still use every value).
    static let dotLimit = 1000

    var title: String
    var unit: String
    var rows: [Row]

    func render() -> SVGCanvas {
        let width = 760.0, left = 170.0, right = 120.0, top = 40.0, rowHeight = 34.0
        let plotWidth = width - left - right
        let height = top + Double(rows.count) * rowHeight + 52
        var svg = SVGCanvas(width: width, height: height, title: title)
        svg.text(16, 22, title, size: 15, bold: true)
        let all = rows.flatMap(\.values).filter { $0 > 0 }
        let axis = Axis.log(from: all.min() ?? 0.01, to: all.max() ?? 1)
        func x(_ v: Double) -> Double { left + axis.fraction(max(v, axis.lower)) * plotWidth }
        let bottom = top + Double(rows.count) * rowHeight

        for tick in axis.ticks {
            svg.line(x(tick), top - 4, x(tick), bottom, stroke: Palette.grid)
            svg.text(x(tick), bottom + 16, tickLabel(tick), anchor: .middle, size: 11, fill: Palette.axis)
        }
        let sampled = rows.contains { $0.values.count > DistributionChart.dotLimit }
        svg.text(
            left + plotWidth / 2, bottom + 36,
            "lateness (log scale); each dot is one item"
                + (sampled ? " (an even sample of \(DistributionChart.dotLimit) per row)" : "")
                + "; | marks p50 and p99",
            anchor: .middle, size: 12, fill: Palette.axis)

        for (index, row) in rows.enumerated() {
            let cy = top + Double(index) * rowHeight + rowHeight / 2
            svg.text(left - 8, cy + 4, row.name, anchor: .end, size: 12)
            svg.line(left, cy, left + plotWidth, cy, stroke: Palette.grid)
            // Deterministic jitter spreads dots vertically so dense clusters stay readable.
            for (i, v) in Downsample.spread(row.values, limit: DistributionChart.dotLimit).enumerated() {
                let jitter = Double((i * 7919) % 13) - 6
                svg.circle(
                    x(v), cy + jitter, r: 2.2, fill: Palette.colour(index), opacity: 0.55,
                    tooltip: "\(row.name): \(Format.number(v.rounded(toPlaces: 3))) \(unit)")
            }
            if let p50 = LatencySummary.percentile(50, of: row.values),
                let p99 = LatencySummary.percentile(99, of: row.values)
            {
                for p in [p50, p99] { svg.line(x(p), cy - 12, x(p), cy + 12, stroke: "#000", width: 2) }
            }
            let note =
                row.values.isEmpty && row.missing > 0
                ? "none of \(row.missing)"
                : (row.missing > 0 ? "\(row.values.count), \(row.missing) never" : "\(row.values.count)")
            svg.text(left + plotWidth + 8, cy + 4, note, size: 11, fill: row.missing > 0 ? "#b00" : Palette.axis)
        }
        return svg
    }

    /// Milliseconds read as `0.1 ms`, `10 ms`, then `1 s`, `10 s` past a second.
    private func tickLabel(_ value: Double) -> String {
        guard unit == "ms", value >= 1000 else { return Axis.log(from: 1, to: 10).label(value) + " " + unit }
        return Format.number(value / 1000) + " s"
    }
}
