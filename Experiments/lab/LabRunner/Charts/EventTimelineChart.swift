import LabHarness

/// One lane per variant with its labelled events along a time axis: when the owner's scope
/// ended, when callbacks ran, when (or whether) the object was released.
struct EventTimelineChart {
    struct Lane {
        var name: String
        var events: [TimedEvent]
        /// A note at the end of the lane, such as "never released".
        var note: String?
    }

    /// Events drawn per lane at most: their labels overlap long before this.
    static let eventLimit = 60

    var title: String
    var lanes: [Lane]

    func render() -> SVGCanvas {
        let width = 760.0, left = 170.0, right = 120.0, top = 44.0, laneHeight = 46.0
        let plotWidth = width - left - right
        let height = top + Double(lanes.count) * laneHeight + 46
        var svg = SVGCanvas(width: width, height: height, title: title)
        svg.text(16, 22, title, size: 15, bold: true)
        // The unit follows the data (`TimeScale`): lanes whose events all fall within
        // microseconds are labelled in µs, not as fractions of a second.
        let maxT = max(lanes.flatMap { $0.events.map(\.t) }.max() ?? 0, 1e-6)
        let scale = TimeScale(longest: maxT)
        let axis = Axis.linear(to: maxT)
        func x(_ t: Double) -> Double { left + axis.fraction(t) * plotWidth }
        let bottom = top + Double(lanes.count) * laneHeight

        for tick in axis.ticks {
            svg.line(x(tick), top - 6, x(tick), bottom, stroke: Palette.grid)
            svg.text(
                x(tick), bottom + 16, tick == 0 ? "0" : scale.label(tick), anchor: .middle, size: 11, fill: Palette.axis
            )
        }
        for (index, lane) in lanes.enumerated() {
            let cy = top + Double(index) * laneHeight + laneHeight / 2
            svg.text(left - 8, cy + 4, lane.name, anchor: .end, size: 12)
            svg.line(left, cy, left + plotWidth, cy, stroke: "#bbb", width: 2)
            let shown = Downsample.evenly(lane.events, limit: EventTimelineChart.eventLimit)
            for (i, event) in shown.enumerated() {
                let colour = colourFor(event.label)
                svg.circle(
                    x(event.t), cy, r: 5, fill: colour,
                    tooltip: "\(event.label) at \(Format.seconds(event.t))" + (event.thread.map { " on \($0)" } ?? ""))
                // Alternate labels above and below the lane so neighbours do not collide.
                let labelY = i % 2 == 0 ? cy - 10 : cy + 19
                svg.text(x(event.t), labelY, event.label, anchor: .middle, size: 10, fill: colour)
            }
            let hidden = lane.events.count - shown.count
            let notes = [lane.note, hidden > 0 ? "\(hidden) more not drawn" : nil].compactMap { $0 }
            if !notes.isEmpty {
                let note = notes.joined(separator: "; ")
                svg.polygon(
                    [(left + plotWidth, cy - 5), (left + plotWidth + 9, cy), (left + plotWidth, cy + 5)], fill: "#b00")
                svg.text(left + plotWidth + 14, cy + 4, note, size: 11, fill: "#b00")
            }
        }
        return svg
    }

    private func colourFor(_ label: String) -> String {
        let lower = label.lowercased()
        if lower.contains("deinit") || lower.contains("release") { return "#2ca02c" }
        if lower.contains("scope") { return "#7f7f7f" }
        if lower.contains("crash") || lower.contains("trap") || lower.contains("stall") { return "#d62728" }
        return "#1f77b4"
    }
}
