import LabHarness

/// A chart drawn from an experiment's report.
struct Chart {
    /// File name without extension: `pool-threads`.
    var id: String
    var title: String
    var svg: SVGCanvas
}

/// Which charts an experiment's data allows. The choice follows the data, not the experiment's
/// name: any variant that recorded a thread timeline is drawn on the thread chart, any that
/// recorded per-item lateness on the distribution chart, any with events on the timeline.
enum ChartSelection {
    static func charts(for report: ExperimentReport) -> [Chart] {
        var charts: [Chart] = []
        let name = report.experiment
        let stem = FileSlug.make(name)  // chart file names come from this, never from the raw name

        let threadLines = report.variants.compactMap { v -> TimelineChart.Line? in
            guard let points = v.series?[SeriesKey.threads], points.count >= 2 else { return nil }
            return TimelineChart.Line(
                name: v.name, points: points.compactMap { p in p.count >= 2 ? (p[0], p[1]) : nil })
        }
        if !threadLines.isEmpty {
            let chart = TimelineChart(title: "\(name): threads over time", yLabel: "threads", lines: threadLines)
            charts.append(Chart(id: "\(stem)-threads", title: chart.title, svg: chart.render()))
        }

        let probeLines = report.variants.compactMap { v -> TimelineChart.Line? in
            guard let points = v.series?[SeriesKey.probeWait], !points.isEmpty else { return nil }
            return TimelineChart.Line(
                name: v.name, points: points.compactMap { p in p.count >= 2 ? (p[0], max(p[1], 0.001)) : nil })
        }
        if !probeLines.isEmpty {
            let chart = TimelineChart(
                title: "\(name): probe latency (ms, log scale)", yLabel: "ms before a probe started",
                lines: probeLines, logarithmic: true)
            charts.append(Chart(id: "\(stem)-probes", title: chart.title, svg: chart.render()))
        }

        let rows = report.variants.compactMap { v -> DistributionChart.Row? in
            guard let points = v.series?[SeriesKey.lateness] else { return nil }
            let values = points.compactMap { $0.last }.map { max($0, 0.001) }
            // The document was range-checked on reading; the clamp keeps the conversion total anyway.
            let total = min(max(v.metrics["total"] ?? Double(values.count), 0), Double(Int32.max))
            return DistributionChart.Row(name: v.name, values: values, missing: max(Int(total) - values.count, 0))
        }
        if !rows.isEmpty {
            let chart = DistributionChart(title: "\(name): how late each timeout timer fired", unit: "ms", rows: rows)
            charts.append(Chart(id: "\(stem)-lateness", title: chart.title, svg: chart.render()))
        }

        let lanes = report.variants.compactMap { v -> EventTimelineChart.Lane? in
            guard let events = v.events, !events.isEmpty else { return nil }
            var note: String?
            if v.outcome == .leaked {
                note = "never released"
            } else if v.outcome == .crashed {
                note = "crashed"
            } else if v.outcome == .deadlock || v.outcome == .stalled {
                note = v.outcome.rawValue
            }
            return EventTimelineChart.Lane(name: v.name, events: events, note: note)
        }
        if !lanes.isEmpty {
            let chart = EventTimelineChart(title: "\(name): events and releases over time", lanes: lanes)
            charts.append(Chart(id: "\(stem)-events", title: chart.title, svg: chart.render()))
        }
        if let sweep = report.sweep, let chart = SweepChart.from(sweep, experiment: name) {
            charts.append(Chart(id: "\(stem)-sweep", title: chart.title, svg: chart.render()))
        }
        return charts
    }
}
