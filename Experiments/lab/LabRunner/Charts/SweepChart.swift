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
            guard let value = p.metrics[metric], value.isFinite, p.size > 0 else { continue }
            if byDesign[p.variant] == nil { order.append(p.variant) }
            byDesign[p.variant, default: []].append((min(Double(p.size), 1e9), min(max(value, 0.001), 1e7)))
        }
        guard !order.isEmpty else { return nil }
        let lines = order.map {
            Line(name: $0, points: byDesign[$0, default: []].sorted { $0.0 < $1.0 }.map { (tasks: $0.0, value: $0.1) })
        }
        return SweepChart(title: "\(experiment): p99 lateness against requests (log-log)", lines: lines)
    }

    func render() -> SVGCanvas {
        let counts = lines.flatMap { $0.points.map(\.tasks) }, values = lines.flatMap { $0.points.map(\.value) }
        let frame = PlotFrame(
            legendWidth: 220, plotHeight: 280,
            xAxis: Axis.log(from: counts.min() ?? 1, to: counts.max() ?? 10),
            yAxis: Axis.log(from: values.min() ?? 0.01, to: values.max() ?? 1))
        var svg = frame.canvas(
            title: title, xLabel: "requests in flight (each point its own process)", yLabel: "p99 lateness",
            xGrid: true, xTickLabel: Format.count, yTickLabel: Format.milliseconds)
        for (index, line) in lines.enumerated() {
            let colour = Palette.colour(index)
            svg.polyline(line.points.map { (frame.x($0.tasks), frame.y($0.value)) }, stroke: colour)
            for p in line.points {
                svg.circle(
                    frame.x(p.tasks), frame.y(p.value), r: 3.5, fill: colour,
                    tooltip: "\(line.name): \(Format.count(p.tasks)) requests, p99 \(Format.milliseconds(p.value))")
            }
            let last = line.points.last.map { " (\(Format.milliseconds($0.value)) at \(Format.count($0.tasks)))" } ?? ""
            frame.legend(&svg, index: index, colour: colour, text: line.name + last)
        }
        return svg
    }
}
