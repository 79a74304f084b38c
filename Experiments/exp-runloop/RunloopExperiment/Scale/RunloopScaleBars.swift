import LabHarness

/// The timeout designs' performance targets at scale, each measured by `lab bench` on a run of
/// its own with async callers and a 1 s timeout: the article's flood of 10,000 requests with the
/// best design, and ten times that.
enum RunloopScaleBars {
    static func arguments(_ variant: RunloopVariant, tasks: Int) -> [String] {
        ["--caller", "async", "--variant", variant.rawValue, "--tasks", String(tasks), "--timeout", "1"]
    }

    /// 10,000 requests: all done within 1.05 × timeout, p99 ≤ 2 ms, ≤ 2 threads added, ≤ 64 MB.
    static let flood = PerformanceBar(title: "deadline-heap with 10,000 async requests",
                                      arguments: arguments(.deadlineHeap, tasks: 10_000)) { report in
        guard let v = report.variant(RunloopVariant.deadlineHeap) else { return [] }
        let n = "deadline-heap, 10,000 requests"
        return [wall(v, n, limit: 1.05), p99(v, n, limitMs: 2), threads(v, n), memory(v, n, limitMB: 64)].compactMap { $0 }
    }

    /// 100,000 requests: p99 ≤ 5 ms, ≤ 2 threads added, and the wall against 1.15 × timeout,
    /// with what it went to (issuing the requests or firing them).
    static let tenfold = PerformanceBar(title: "deadline-heap with 100,000 async requests",
                                        arguments: arguments(.deadlineHeap, tasks: 100_000)) { report in
        guard let v = report.variant(RunloopVariant.deadlineHeap) else { return [] }
        let n = "deadline-heap, 100,000 requests"
        return [p99(v, n, limitMs: 5), threads(v, n), wall(v, n, limit: 1.15)].compactMap { $0 }
    }

    static func wall(_ v: VariantReport, _ n: String, limit: Double) -> PerformanceBar.Figure? {
        guard let ratio = v[RunloopMetric.wallPerTimeout] else { return nil }
        let issue = v[RunloopMetric.issueS] ?? .nan, drain = v[RunloopMetric.drainS] ?? .nan
        let dominant = issue >= drain ? "issuing dominates" : "firing dominates"
        return PerformanceBar.Figure(name: "\(n): all done / timeout", value: ratio, unit: "×", target: "<= \(Format.number(limit))",
                                     met: ratio <= limit && v.outcome == .completed,
                                     detail: "\(dominant): issuing \(Format.seconds(issue)) (one detached task per request), firing fell behind the last deadline by \(Format.seconds(drain)); peak \(v[RunloopMetric.memoryPeakMb].map { Format.decimal($0, places: 0) } ?? "—") MB; outcome \(v.outcome)")
    }

    static func p99(_ v: VariantReport, _ n: String, limitMs: Double) -> PerformanceBar.Figure? {
        guard let p99 = v[RunloopMetric.latenessP99Ms] else { return nil }
        return PerformanceBar.Figure(name: "\(n): p99 lateness", value: p99, unit: "ms", target: "<= \(Format.number(limitMs)) ms", met: p99 <= limitMs,
                                     detail: "p50 \(v[RunloopMetric.latenessP50Ms].map(Format.milliseconds) ?? "—"), max \(v[RunloopMetric.latenessMaxMs].map(Format.milliseconds) ?? "—"), control held up \(v[StallWatch.worstMetric].map(Format.milliseconds) ?? "—") at worst\(priority(v))")
    }

    /// The figure depends on it: a timer thread at normal priority competes with the callers it wakes.
    static func priority(_ v: VariantReport) -> String {
        switch v[RunloopMetric.threadsRealtime] {
        case 1: "; its thread at real-time priority"
        case 0: "; its thread at normal priority (real-time refused)"
        default: ""
        }
    }

    static func threads(_ v: VariantReport, _ n: String) -> PerformanceBar.Figure? {
        guard let added = v[RunloopMetric.threadsAdded] else { return nil }
        return PerformanceBar.Figure(name: "\(n): threads added", value: added, unit: "threads", target: "<= 2", met: added <= 2,
                                     detail: v.evidence ?? "")
    }

    static func memory(_ v: VariantReport, _ n: String, limitMB: Double) -> PerformanceBar.Figure? {
        guard let mb = v[RunloopMetric.memoryPeakMb] else { return nil }
        return PerformanceBar.Figure(name: "\(n): peak resident memory", value: mb, unit: "MB", target: "<= \(Format.number(limitMB)) MB", met: mb <= limitMB,
                                     detail: "the whole trial process, callers included")
    }
}
