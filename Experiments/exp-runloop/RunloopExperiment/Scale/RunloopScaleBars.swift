import LabHarness

/// The timeout designs' performance targets at scale, each measured by `lab bench` on a run of
/// its own with async callers and a 1 s timeout: the article's flood of 10,000 requests with the
/// best design, and ten times that.
enum RunloopScaleBars {
    /// 10,000 requests: all done within 1.05 × timeout, p99 ≤ 2 ms, ≤ 2 threads added, ≤ 64 MB.
    static let flood = bar(10_000) { v, n in
        [wall(v, n, limit: 1.05), p99(v, n, limitMs: 2), threads(v, n), memory(v, n, limitMB: 64)]
    }
    /// 100,000 requests: p99 ≤ 5 ms, ≤ 2 threads added, and the wall beyond the issuing against
    /// 1.10 × timeout. Issuing 100,000 detached tasks from one thread takes about 0.2 s on 2 cores
    /// whatever keeps the timeouts, and the last request's deadline is a timeout after it
    /// started, so the whole wall (issuing + timeout + waking the callers) measures the callers
    /// as much as the design; the row states the issuing time beside it. The tenth of a timeout
    /// left is for resuming ten times the callers of the 10,000 row, on the pool's two threads.
    static let tenfold = bar(100_000) { v, n in
        [p99(v, n, limitMs: 5), threads(v, n), beyondIssuing(v, n, limit: 1.10)]
    }

    static func bar(
        _ tasks: Int, _ figures: @escaping @Sendable (VariantReport, String) -> [PerformanceBar.Figure?]
    ) -> PerformanceBar {
        let n = "deadline-heap, \(Format.count(Double(tasks))) requests"
        return PerformanceBar(
            title: "deadline-heap with \(Format.count(Double(tasks))) async requests",
            arguments: [
                "--caller", "async", "--variant", TimeoutDesignName.deadlineHeap.rawValue, "--tasks", String(tasks),
                "--timeout", "1",
            ]
        ) { report in
            report.variant(TimeoutDesignName.deadlineHeap).map { figures($0, n).compactMap { $0 } } ?? []
        }
    }

    static func wall(_ v: VariantReport, _ n: String, limit: Double) -> PerformanceBar.Figure? {
        guard let ratio = v[RunloopMetric.wallPerTimeout] else { return nil }
        return PerformanceBar.Figure(
            name: "\(n): all done / timeout", value: ratio, unit: "×", target: "<= \(Format.number(limit))",
            met: ratio <= limit && v.outcome == .completed,
            detail: wallDetail(v))
    }

    /// Which part of the wall time dominates, and the figures of each.
    private static func wallDetail(_ v: VariantReport) -> String {
        let issue = v[RunloopMetric.issueS] ?? .nan, drain = v[RunloopMetric.drainS] ?? .nan
        let dominates = issue >= drain ? "issuing dominates" : "firing dominates"
        let peak = v[RunloopMetric.memoryPeakMB].map { Format.decimal($0, places: 0) } ?? "—"
        return
            "\(dominates): issuing \(Format.seconds(issue)) (one detached task per request), firing fell behind the last deadline by \(Format.seconds(drain)); peak \(peak) MB; outcome \(v.outcome)"
    }

    /// From the last request issued to the last one woken, over the timeout: the timeout itself
    /// (a timeout counts from its request's issue) plus how far firing fell behind the last
    /// deadline, with the issuing time stated beside it.
    static func beyondIssuing(_ v: VariantReport, _ n: String, limit: Double) -> PerformanceBar.Figure? {
        guard let wall = v[RunloopMetric.wallS], let issue = v[RunloopMetric.issueS],
            let ratio = v[RunloopMetric.wallPerTimeout], let drain = v[RunloopMetric.drainS]
        else { return nil }
        let timeout = wall / ratio, beyond = 1 + drain / timeout
        let issuing = "issuing took \(Format.seconds(issue)) (one detached task per request, from one thread)"
        return PerformanceBar.Figure(
            name: "\(n): all done beyond issuing / timeout", value: beyond, unit: "×",
            target: "<= \(Format.number(limit))", met: beyond <= limit && v.outcome == .completed,
            detail: "\(issuing); all done in \(Format.decimal(ratio, places: 3)) × timeout with it; "
                + "the last caller woke \(Format.seconds(drain)) after the last deadline; outcome \(v.outcome)")
    }

    static func p99(_ v: VariantReport, _ n: String, limitMs: Double) -> PerformanceBar.Figure? {
        guard let p99 = v[RunloopMetric.latenessP99Ms] else { return nil }
        // The figure depends on it: a timer thread at normal priority competes with the callers it wakes.
        let ms = { (key: String) in v[key].map(Format.milliseconds) ?? "—" }
        let p50 = ms(RunloopMetric.latenessP50Ms), late = ms(RunloopMetric.latenessMaxMs)
        let priority =
            [1: "; its thread at real-time priority", 0: "; its thread at normal priority (real-time refused)"][
                v[RunloopMetric.threadsRealtime].map(Int.init) ?? -1] ?? ""
        return PerformanceBar.Figure(
            name: "\(n): p99 lateness", value: p99, unit: "ms", target: "<= \(Format.number(limitMs)) ms",
            met: p99 <= limitMs,
            detail:
                "p50 \(p50), max \(late), control held up \(ms(Metrics.controlStallMax)) at worst\(priority)"
        )
    }

    static func threads(_ v: VariantReport, _ n: String) -> PerformanceBar.Figure? {
        v[RunloopMetric.threadsAdded].map {
            PerformanceBar.Figure(
                name: "\(n): threads added", value: $0, unit: "threads", target: "<= 2", met: $0 <= 2,
                detail: v.evidence ?? "")
        }
    }

    static func memory(_ v: VariantReport, _ n: String, limitMB: Double) -> PerformanceBar.Figure? {
        v[RunloopMetric.memoryPeakMB].map {
            PerformanceBar.Figure(
                name: "\(n): peak resident memory", value: $0, unit: "MB", target: "<= \(Format.number(limitMB)) MB",
                met: $0 <= limitMB, detail: "the whole trial process, callers included")
        }
    }
}
