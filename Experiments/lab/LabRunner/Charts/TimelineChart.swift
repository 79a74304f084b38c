import LabHarness

/// Lines over time: one step line per variant (thread counts, probe latencies), with a legend.
/// Used for the thread-count timeline of every pool flood (and any variant that recorded one).
struct TimelineChart {
    struct Line {
        var name: String
        var points: [(t: Double, value: Double)]
    }

    var title: String
    var yLabel: String
    var lines: [Line]
    var logarithmic = false

    func render() -> SVGCanvas {
        let width = 820.0, plotLeft = 64.0, plotRight = 260.0, plotTop = 40.0, plotHeight = 260.0
        let height = plotTop + plotHeight + 56
        let plotWidth = width - plotLeft - plotRight
        var svg = SVGCanvas(width: width, height: height, title: title)
        svg.text(plotLeft, 22, title, size: 15, bold: true)

        let maxT = lines.flatMap { $0.points.map(\.t) }.max() ?? 1
        let values = lines.flatMap { $0.points.map(\.value) }
        let xAxis = Axis.linear(to: max(maxT, 1e-3))
        let yAxis = logarithmic
            ? Axis.log(from: values.filter { $0 > 0 }.min() ?? 0.001, to: values.max() ?? 1)
            : Axis.linear(to: max(values.max() ?? 1, 1))
        func x(_ t: Double) -> Double { plotLeft + xAxis.fraction(t) * plotWidth }
        func y(_ v: Double) -> Double { plotTop + plotHeight - yAxis.fraction(v) * plotHeight }

        for tick in yAxis.ticks {
            svg.line(plotLeft, y(tick), plotLeft + plotWidth, y(tick), stroke: Palette.grid)
            svg.text(plotLeft - 6, y(tick) + 4, yAxis.label(tick), anchor: .end, size: 11, fill: Palette.axis)
        }
        for tick in xAxis.ticks {
            svg.line(x(tick), plotTop + plotHeight, x(tick), plotTop + plotHeight + 4, stroke: Palette.axis)
            svg.text(x(tick), plotTop + plotHeight + 17, xAxis.label(tick), anchor: .middle, size: 11, fill: Palette.axis)
        }
        svg.line(plotLeft, plotTop + plotHeight, plotLeft + plotWidth, plotTop + plotHeight, stroke: Palette.axis)
        svg.line(plotLeft, plotTop, plotLeft, plotTop + plotHeight, stroke: Palette.axis)
        svg.text(plotLeft + plotWidth / 2, plotTop + plotHeight + 36, "seconds since the variant started", anchor: .middle, size: 12, fill: Palette.axis)
        svg.text(18, plotTop + plotHeight / 2, yLabel, anchor: .middle, size: 12, fill: Palette.axis, rotate: -90)

        for (index, line) in lines.enumerated() {
            var steps: [(Double, Double)] = []
            let drawn = Downsample.line(line.points, columns: Int(plotWidth), fraction: xAxis.fraction)
            for (i, p) in drawn.enumerated() {
                if i > 0 { steps.append((x(p.t), steps.last!.1)) }   // step: hold the last value until now
                steps.append((x(p.t), y(p.value)))
            }
            svg.polyline(steps, stroke: Palette.colour(index))
            let legendY = plotTop + 8 + Double(index) * 20
            svg.rect(plotLeft + plotWidth + 16, legendY - 9, 14, 4, fill: Palette.colour(index))
            let peak = line.points.map(\.value).max().map { " (peak \(Format.number($0.rounded(toPlaces: 2))))" } ?? ""
            svg.text(plotLeft + plotWidth + 36, legendY - 3, line.name + peak, size: 11)
        }
        return svg
    }
}

extension Double {
    func rounded(toPlaces places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (self * scale).rounded() / scale
    }
}
