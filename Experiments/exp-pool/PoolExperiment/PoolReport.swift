import LabHarness

/// The terminal report's pieces: the table's columns and the flood's thread chart.
enum PoolReport {
    static let columns: [ReportColumn] =
        [
            .ratio("started", PoolMetric.blocksStarted, of: PoolMetric.tasks),
            .count("at once", PoolMetric.runningMax), .count("threads", PoolMetric.threadsPeak),
            .decimal("+thr/s", PoolMetric.growthThreadsPerS, places: 1),
        ]
        + [
            ("probe p50", PoolMetric.probeP50Ms), ("probe p99", PoolMetric.probeP99Ms),
            ("excess p99", PoolMetric.excessP99Ms),
            ("idle p99", PoolMetric.idleP99Ms),
        ].map { header, key in ReportColumn(header) { $0[key].map(PoolVerdicts.ms) ?? "—" } }

    /// The flood's thread count over time (the staircase is the point of the experiment), then
    /// the main thread's heartbeat: on time through the flood, stopped while it waited on the pool.
    static func sections(_ report: ExperimentReport) -> [String] {
        guard let v = report.variant(PoolVariant.mainThread), let gap = v[PoolMetric.spareGapMaxMs],
            let frozen = v[PoolMetric.freezeGapMaxMs]
        else {
            return floodSection(report)
        }
        return floodSection(report) + [
            "  main-thread: 60 Hz heartbeat through the flood, largest gap \(PoolVerdicts.ms(gap)); waiting on the flooded "
                + "queue, no tick for \(PoolVerdicts.ms(frozen)) (\(Format.count((frozen / (MainThread.frame * 1000)).rounded(.down))) frames)"
        ]
    }

    static func floodSection(_ report: ExperimentReport) -> [String] {
        guard let flood = report.variant(PoolVariant.globalFlood), let threads = flood.series?[SeriesKey.threads],
            threads.count >= 2
        else {
            return []
        }
        let m = flood.metrics
        var lines = [
            "  global-flood: threads of the process while \(Format.count(m[PoolMetric.tasks] ?? 0)) blocks wait for the pool"
        ]
        lines += TextChart.timeline(threads.map { (x: $0[0], y: $0[1]) }, width: 56, height: 8).map { "    " + $0 }
        if let p50 = m[PoolMetric.probeP50Ms], let idle = m[PoolMetric.idleP50Ms] {
            lines.append(
                "    a probe waited \(PoolVerdicts.ms(p50)) (p50) for a thread; on the idle pool, \(PoolVerdicts.ms(idle))"
            )
        }
        if let workers = m[PoolMetric.capWorkers], let cap = m[PoolMetric.capThreads] {
            lines.append("    cap: \(Format.count(workers)) busy workers, \(Format.count(cap)) threads in all")
        }
        return [lines.joined(separator: "\n")]
    }
}
