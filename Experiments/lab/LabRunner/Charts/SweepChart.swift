import Foundation
import LabHarness

/// A sweep on log-log axes: p99 lateness against the number of requests, one line per design.
/// A slope of one decade per decade is a cost per request; a flat line is a design that scales.
struct SweepChart {
    struct Line {
        var name: String
        var points: [(tasks: Double, value: Double)]
    }

    var title: String
    var lines: [Line]

    /// The chart of a report's `sweep` array (`nil` when it has none with lateness). Values are
    /// clamped to the axes' range: the input is untrusted and a point must not break the scale.
    static func from(_ points: [SweepPoint], experiment: String, metric: String = "lateness.p99_ms") -> SweepChart? {
        var order: [String] = []
        var byDesign: [String: [(Double, Double)]] = [:]
        for p in points {
            guard let value = p.metrics[metric], value.isFinite, p.tasks > 0 else { continue }
            if byDesign[p.variant] == nil { order.append(p.variant) }
            byDesign[p.variant, default: []].append((min(Double(p.tasks), 1e9), min(max(value, 0.001), 1e7)))
        }
        guard !order.isEmpty else { return nil }
        let lines = order.map { Line(name: $0, points: byDesign[$0, default: []].sorted { $0.0 < $1.0 }.map { (tasks: $0.0, value: $0.1) }) }
        return SweepChart(title: "\(experiment): p99 lateness against requests (log-log)", lines: lines)
    }

    func render() -> SVGCanvas {
        let width = 820.0, plotLeft = 64.0, plotRight = 220.0, plotTop = 40.0, plotHeight = 280.0
        let height = plotTop + plotHeight + 56
        let plotWidth = width - plotLeft - plotRight
        var svg = SVGCanvas(width: width, height: height, title: title)
        svg.text(plotLeft, 22, title, size: 15, bold: true)

        let counts = lines.flatMap { $0.points.map(\.tasks) }, values = lines.flatMap { $0.points.map(\.value) }
        let xAxis = Axis.log(from: counts.min() ?? 1, to: counts.max() ?? 10)
        let yAxis = Axis.log(from: values.min() ?? 0.01, to: values.max() ?? 1)
        func x(_ v: Double) -> Double { plotLeft + xAxis.fraction(v) * plotWidth }
        func y(_ v: Double) -> Double { plotTop + plotHeight - yAxis.fraction(v) * plotHeight }

        for tick in yAxis.ticks {
            svg.line(plotLeft, y(tick), plotLeft + plotWidth, y(tick), stroke: Palette.grid)
            svg.text(plotLeft - 6, y(tick) + 4, Format.milliseconds(tick), anchor: .end, size: 11, fill: Palette.axis)
        }
        for tick in xAxis.ticks {
            svg.line(x(tick), plotTop, x(tick), plotTop + plotHeight + 4, stroke: Palette.grid)
            svg.text(x(tick), plotTop + plotHeight + 17, Format.count(tick), anchor: .middle, size: 11, fill: Palette.axis)
        }
        svg.line(plotLeft, plotTop + plotHeight, plotLeft + plotWidth, plotTop + plotHeight, stroke: Palette.axis)
        svg.line(plotLeft, plotTop, plotLeft, plotTop + plotHeight, stroke: Palette.axis)
        svg.text(plotLeft + plotWidth / 2, plotTop + plotHeight + 36, "requests in flight (each point its own process)", anchor: .middle, size: 12, fill: Palette.axis)
        svg.text(18, plotTop + plotHeight / 2, "p99 lateness", anchor: .middle, size: 12, fill: Palette.axis, rotate: -90)

        for (index, line) in lines.enumerated() {
            let colour = Palette.colour(index)
            svg.polyline(line.points.map { (x($0.tasks), y($0.value)) }, stroke: colour)
            for p in line.points {
                svg.circle(x(p.tasks), y(p.value), r: 3.5, fill: colour,
                           tooltip: "\(line.name): \(Format.count(p.tasks)) requests, p99 \(Format.milliseconds(p.value))")
            }
            let legendY = plotTop + 8 + Double(index) * 20
            svg.rect(plotLeft + plotWidth + 16, legendY - 9, 14, 4, fill: colour)
            let last = line.points.last.map { " (\(Format.milliseconds($0.value)) at \(Format.count($0.tasks)))" } ?? ""
            svg.text(plotLeft + plotWidth + 36, legendY - 3, line.name + last, size: 11)
        }
        return svg
    }
}
