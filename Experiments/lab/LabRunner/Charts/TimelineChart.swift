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
        let maxT = lines.flatMap { $0.points.map(\.t) }.max() ?? 1
        let values = lines.flatMap { $0.points.map(\.value) }
        let yAxis =
            logarithmic
            ? Axis.log(from: values.filter { $0 > 0 }.min() ?? 0.001, to: values.max() ?? 1)
            : Axis.linear(to: max(values.max() ?? 1, 1))
        let frame = PlotFrame(legendWidth: 260, plotHeight: 260, xAxis: Axis.linear(to: max(maxT, 1e-3)), yAxis: yAxis)
        var svg = frame.canvas(
            title: title, xLabel: "seconds since the variant started", yLabel: yLabel,
            xGrid: false, xTickLabel: frame.xAxis.label, yTickLabel: frame.yAxis.label)
        for (index, line) in lines.enumerated() {
            var steps: [(Double, Double)] = []
            let drawn = Downsample.line(line.points, columns: Int(frame.plotWidth), fraction: frame.xAxis.fraction)
            for (i, p) in drawn.enumerated() {
                if i > 0 { steps.append((frame.x(p.t), steps.last!.1)) }  // step: hold the last value until now
                steps.append((frame.x(p.t), frame.y(p.value)))
            }
            svg.polyline(steps, stroke: Palette.colour(index))
            let peak = line.points.map(\.value).max().map { " (peak \(Format.number($0.rounded(toPlaces: 2))))" } ?? ""
            frame.legend(&svg, index: index, colour: Palette.colour(index), text: line.name + peak)
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
