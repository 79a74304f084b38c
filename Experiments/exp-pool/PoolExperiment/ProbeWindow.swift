import Dispatch
import LabHarness

/// The shape every probing variant shares: probe the idle pool, start the work, probe every
/// 100 ms while sampling the thread count, then gather threads, starts and probe waits into
/// metrics and series.
///
/// The work itself (a flood, a gate, a serial queue, timers) is the only thing that differs, so
/// the numbers of different variants are comparable.
struct ProbeWindow {
    /// When the watch ends.
    enum Ending {
        /// After exactly this long.
        case after(Seconds)
        /// Once every unit of work has started (plus one probe interval), at most this long.
        case allStarted(within: Seconds)
        /// Once the thread count has not risen for `flat` seconds (a cap), or every unit
        /// started, at most `within` seconds.
        case plateau(flat: Seconds, within: Seconds)
    }

    var parameters: PoolParameters
    /// Probes on the idle pool before the work starts.
    var idleProbes: Int
    /// Units of work the variant submits (blocks or timers).
    var expected: Int
    var ending: Ending
    /// How long to wait, after the watch, for probes that are still queued.
    var drain: Seconds

    /// What the watch measured.
    struct Result {
        var metrics: Metrics
        var series: [String: [[Double]]]
        var idleP99Ms: Double
        var excessP99Ms: Double
        var ledger: BlockLedger
        /// `.plateau` only: the count stopped rising while work was still waiting.
        var plateau: Bool
    }

    /// Runs the watch on the calling thread; `start` submits the work and must return at once.
    func run(_ context: VariantContext, start: (BlockLedger) -> Void) -> Result {
        let idle = IdleBaseline.measure(count: idleProbes, spacing: parameters.idleSpacing)

        let sampler = ThreadSampler(interval: parameters.findCap ? 0.05 : 0.01)
        sampler.start()
        let ledger = BlockLedger(progress: context.progress)
        let probes = ProbeLog(origin: ledger.origin)
        start(ledger)

        // Probe on an absolute 100 ms grid until the watch ends.
        var next = ledger.origin
        var peak = sampler.peakSoFar
        var lastRise = ledger.origin
        var plateau = false
        var watching = true
        while watching {
            probes.submit()
            next += parameters.probeInterval
            MonotonicClock.sleep(until: next)
            let now = MonotonicClock.now()
            let elapsed = now - ledger.origin
            switch ending {
            case .after(let limit):
                watching = elapsed < limit
            case .allStarted(let limit):
                watching = elapsed < limit && ledger.started < expected
            case .plateau(let flat, let limit):
                let seen = sampler.peakSoFar
                if seen > peak { peak = seen; lastRise = now }
                plateau = now - lastRise >= flat
                watching = elapsed < limit && ledger.started < expected && !plateau
            }
        }
        let watchEnd = MonotonicClock.now()
        // Probes still queued get a little time to start, so their waits are measured rather
        // than bounded; those that do not are kept as lower bounds.
        let drainUntil = watchEnd + drain
        while probes.waiting > 0 && MonotonicClock.now() < drainUntil { MonotonicClock.sleep(for: 0.01) }
        let end = MonotonicClock.now()
        let timeline = sampler.stop()

        var metrics = Metrics()
        metrics[PoolMetric.tasks] = Double(expected)
        metrics[PoolMetric.blocksStarted] = Double(ledger.started)
        metrics[PoolMetric.runningMax] = Double(ledger.maxRunning)
        if ledger.started >= expected, let last = ledger.lastStart { metrics[PoolMetric.blocksLastStartS] = last }
        metrics[PoolMetric.watchS] = watchEnd - ledger.origin
        metrics[PoolMetric.threadsBefore] = Double(timeline.first)
        metrics[PoolMetric.threadsPeak] = Double(timeline.peak)
        metrics[PoolMetric.threadsAdded] = Double(timeline.peak - timeline.first)
        metrics[PoolMetric.threadsFinal] = Double(timeline.final)
        // Growth while blocks were still waiting: after the last one started the pool has no
        // reason to grow.
        let growthEnd = ledger.started >= expected ? (ledger.lastStart ?? timeline.duration) : timeline.duration
        if case .plateau = ending {
            // Growth up to the moment the count reached its peak, and the cap itself when the
            // count stopped rising with work still waiting.
            let reached = timeline.firstTime(reaching: timeline.peak) ?? timeline.duration
            metrics[PoolMetric.capReachedS] = reached
            if let rate = timeline.growthRate(in: 0...max(reached, 0.05)) { metrics[PoolMetric.growthThreadsPerS] = rate }
            if plateau && ledger.started < expected {
                metrics[PoolMetric.capThreads] = Double(timeline.peak)
                // Each started block holds its worker for good, so this counts the workers.
                metrics[PoolMetric.capWorkers] = Double(ledger.started)
            }
        } else if let rate = timeline.growthRate(in: 0...max(growthEnd, 0.05)) {
            metrics[PoolMetric.growthThreadsPerS] = rate
        }

        if let raw = LatencySummary(idle.waits) { metrics.merge(raw.metrics(prefix: "idle", unit: "_ms", scale: 1000)) }
        let idleSummary = LatencySummary(idle.net)
        if let idleSummary {
            metrics[PoolMetric.idleNetP50Ms] = idleSummary.p50 * 1000
            metrics[PoolMetric.idleNetP99Ms] = idleSummary.p99 * 1000
        }
        let waits = probes.waits(at: end)
        let probeSummary = LatencySummary(waits.probe)
        if let probeSummary { metrics.merge(probeSummary.metrics(prefix: "probe", unit: "_ms", scale: 1000)) }
        if let control = LatencySummary(waits.control) { metrics.merge(control.metrics(prefix: "control", unit: "_ms", scale: 1000)) }
        let excessSummary = LatencySummary(waits.excess)
        if let excessSummary { metrics.merge(excessSummary.metrics(prefix: "excess", unit: "_ms", scale: 1000)) }
        metrics[PoolMetric.probeCount] = Double(waits.probe.count)
        metrics[PoolMetric.probeUnstarted] = Double(waits.unstarted)
        metrics[PoolMetric.wallS] = end - ledger.origin

        var series = probes.series(at: end)
        series[SeriesKey.threads] = timeline.series()
        series["started"] = ledger.startedSeries()
        return Result(metrics: metrics, series: series,
                      idleP99Ms: (idleSummary?.p99 ?? .nan) * 1000, excessP99Ms: (excessSummary?.p99 ?? .nan) * 1000,
                      ledger: ledger, plateau: plateau && ledger.started < expected)
    }
}

extension ProbeWindow.Result {
    /// `responsive` or `starved`, by the rule in `Responsiveness`.
    var probeOutcome: Outcome {
        Responsiveness.isResponsive(excessP99Ms: excessP99Ms, idleP99Ms: idleP99Ms) ? .responsive : .starved
    }

    func record(outcome: Outcome? = nil, extra: Metrics = Metrics()) -> VariantRecord {
        var m = metrics
        m.merge(extra)
        return VariantRecord(outcome: outcome ?? probeOutcome, metrics: m, series: series)
    }
}
