import Foundation
import LabHarness

/// The terminal table: few columns, a unit on every number, readable from the back of a room.
let runloopColumns: [ReportColumn] = [
    .ratio("done", RunloopMetric.completed, of: RunloopMetric.total),
    .seconds("wall", RunloopMetric.wallS),
    ReportColumn("wait p50") { v in
        atLeast(v, RunloopMetric.waitCensored, v[RunloopMetric.waitP50S].map(Format.seconds))
    },
    ReportColumn("late p99") { v in
        atLeast(v, RunloopMetric.latenessCensored, v[RunloopMetric.latenessP99Ms].map(Format.milliseconds))
    },
    .count("threads", RunloopMetric.threadsPeak),
]

/// A percentile that includes requests still waiting at the end is only a lower bound: `≥ 3.00 s`.
private func atLeast(_ v: VariantReport, _ censored: String, _ text: String?) -> String {
    guard let text else { return "—" }
    return (v[censored] ?? 0) > 0 ? "≥ " + text : text
}

/// Sections under the table: the caller comparison with the performance bar, and the thread
/// timeline that explains why blocked callers are slow.
@Sendable func runloopSections(_ report: ExperimentReport) -> [String] {
    [callerSection(report), threadChart(report)].compactMap { $0 }
}

/// The options a report was run with, as the sections need them: read from the report's
/// `parameters` (a report may come from a file, long after the run), with no default. A report
/// without them gets no section that would need them, rather than figures computed from a
/// guessed timeout.
struct RecordedOptions {
    var timeout: TimeInterval, caller: CallerKind

    init?(_ report: ExperimentReport) {
        guard let timeout = report.parameters["timeout_s"]?.number,
            let caller = report.parameters["caller"].flatMap({ CallerKind(rawValue: $0.description) })
        else { return nil }
        (self.timeout, self.caller) = (timeout, caller)
    }
}

/// "Same placement, different callers", then the performance bar when it was measured.
func callerSection(_ report: ExperimentReport) -> String? {
    guard let recorded = RecordedOptions(report) else { return nil }
    let timeout = recorded.timeout, caller = recorded.caller.rawValue
    var lines: [String] = []
    for placement in [RunloopVariant.dedicatedThread, .sharedThread] {
        guard let blocked = report.variant(placement)?[RunloopMetric.wallS],
            let free = report.variant(placement.withAsyncCallers)?[RunloopMetric.wallS]
        else { continue }
        lines.append(
            "  \(pad(placement.rawValue, 17)) \(pad(Format.seconds(blocked), 7)) with \(caller) callers   \(pad(Format.seconds(free), 7)) with async callers"
        )
    }
    if !lines.isEmpty {
        lines.insert("same run loops, different callers (all requests, first start to last done):", at: 0)
    }
    let bar: VariantReport? =
        report.variant(RunloopVariant.sharedThreadAsync)
        ?? (caller == "async" ? report.variant(RunloopVariant.sharedThread) : nil)
    if let bar, let wall = bar[RunloopMetric.wallS], let p99 = bar[RunloopMetric.latenessP99Ms] {
        let met = RunloopBar.figures(bar, timeout: timeout).allSatisfy(\.met)
        let total = Format.count(bar[RunloopMetric.total] ?? 0), perTimeout = Format.decimal(wall / timeout, places: 3)
        let figures =
            "  \(total) requests done in \(Format.seconds(wall)) = \(perTimeout) × timeout, timer lateness p99 \(Format.milliseconds(p99))"
        if !lines.isEmpty { lines.append("") }
        // Run beside other trials, on the same two cores, the bar is not judged: only quoted.
        lines +=
            report.variants.count == 1
            ? [
                "performance bar (shared-thread, async callers): \(RunloopBar.targets)",
                figures + "   \(met ? "met" : "MISSED")",
            ]
            : [
                "shared-thread with async callers, alongside the other trials:", figures,
                "  (performance bar: \(RunloopBar.targets), judged alone: exp-runloop \(RunloopBar.bar.arguments.joined(separator: " ")))",
            ]
    }
    return lines.isEmpty ? nil : lines.joined(separator: "\n")
}

/// exp-runloop's performance bar: the best placement with the best callers (shared-thread,
/// async callers) finishes the article's 300 requests in about one timeout, its timers within
/// milliseconds. `lab bench` measures it on a run of its own; the report quotes it.
enum RunloopBar {
    /// All done within this many timeouts; timers' p99 lateness under this many milliseconds.
    static let wallLimit = 1.05, p99LimitMs = 10.0
    static let targets =
        "all done in ≤ \(Format.number(wallLimit)) × timeout, timer p99 < \(Format.number(p99LimitMs)) ms"

    static let bar = PerformanceBar(
        title: "shared-thread with async callers (300 requests)",
        arguments: [
            "--caller", "async", "--variant", RunloopVariant.sharedThread.rawValue, "--tasks", "300", "--timeout", "1",
        ]
    ) { report in
        guard let recorded = RecordedOptions(report) else { return [] }
        return report.variant(RunloopVariant.sharedThread).map { figures($0, timeout: recorded.timeout) } ?? []
    }

    static func figures(_ v: VariantReport, timeout: TimeInterval) -> [PerformanceBar.Figure] {
        guard let wall = v[RunloopMetric.wallS] else { return [] }
        let ratio = wall / timeout
        let total = PerformanceBar.Figure(
            name:
                "best runloop variant (shared-thread, async callers, \(Format.count(v[RunloopMetric.total] ?? 0)) requests): total / timeout",
            value: ratio, unit: "×", target: "<= \(Format.number(wallLimit))",
            met: ratio <= wallLimit && v[RunloopMetric.completed] == v[RunloopMetric.total],
            detail: "\(Format.seconds(wall)) for a \(Format.seconds(timeout)) timeout; outcome \(v.outcome)")
        return [total]
            + (v[RunloopMetric.latenessP99Ms].map { p99 in
                [
                    PerformanceBar.Figure(
                        name: "its timers' p99 lateness", value: p99, unit: "ms",
                        target: "< \(Format.number(p99LimitMs)) ms", met: p99 < p99LimitMs,
                        detail: "max \(v[RunloopMetric.latenessMaxMs].map(Format.milliseconds) ?? "—")")
                ]
            } ?? [])
    }
}

/// Threads over time for dedicated-thread with blocked callers: the pool's slow growth is the
/// whole story of its 20-odd seconds.
func threadChart(_ report: ExperimentReport) -> String? {
    guard RecordedOptions(report)?.caller == .global, let v = report.variant(RunloopVariant.dedicatedThread),
        let points = v.series?[SeriesKey.threads], points.count >= 2, let last = points.last?[0], last >= 2
    else { return nil }
    let chart = TextChart.timeline(points.map { (x: $0[0], y: $0[1]) }, width: 56, height: 5)
    let perSecond = v[RunloopMetric.inFlightPeak].map { "at most \(Format.count($0)) callers in flight" } ?? ""
    var lines = [
        "threads in dedicated-thread (\(Format.count(v[RunloopMetric.total] ?? 0)) callers blocked on the global queue; \(perSecond)):"
    ]
    lines += chart.map { "  " + $0 }
    return lines.joined(separator: "\n")
}

private func pad(_ s: String, _ width: Int) -> String { s + String(repeating: " ", count: max(0, width - s.count)) }
