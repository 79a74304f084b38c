import LabHarness
import Synchronization

/// The work's units as they run, counted from inside them (how many ran at once is the pool's
/// width as the work saw it); each start is the event `block started` and a step of progress.
final class Blocks: Sendable {
    static let startedLabel = "block started"
    private let counts = Mutex((started: 0, running: 0, max: 0))
    private let context: VariantContext
    /// Monotonic instant the work was submitted; the watch's times are relative to it.
    let origin: Seconds

    init(_ context: VariantContext) { (self.context, origin) = (context, MonotonicClock.now()) }

    func begin() {
        context.event(Blocks.startedLabel)
        counts.withLock { c in
            c.started += 1; c.running += 1; c.max = Swift.max(c.max, c.running)
        }
        context.progress.advance()
    }
    func end() { counts.withLock { $0.running -= 1 } }

    /// One unit of the article's work: holds the calling thread for `seconds` (its sleep(30)).
    func hold(_ seconds: Seconds) {
        begin()
        MonotonicClock.sleep(for: seconds)  // holds its thread on purpose: the mistake measured
        end()
    }

    var started: Int { counts.withLock { $0.started } }
    var maxRunning: Int { counts.withLock { $0.max } }
    /// Start times, seconds since `origin`, in order, and as the series `started` (time, count).
    var starts: [Seconds] {
        context.events.filter { $0.label == Blocks.startedLabel }.map { context.startedAt + $0.t - origin }
    }
    static func series(_ starts: [Seconds]) -> [[Double]] {
        starts.enumerated().map { [$0.element, Double($0.offset + 1)] }
    }
}

/// The shape every probing variant shares, so their numbers compare: probe the idle pool, start
/// the work, probe every 100 ms while the harness samples the thread count, gather the metrics.
struct ProbeWindow {
    /// After a time; once every unit started (at most `within`); or also once the thread count
    /// has not risen for `flat` seconds (a cap).
    enum Ending { case after(Seconds), allStarted(within: Seconds), plateau(flat: Seconds, within: Seconds) }

    /// How long to wait after the watch for probes still queued; whether the idle baseline takes
    /// the flood's probes (`floodIdleProbes`, not `idleProbes`). The work is `--tasks` units.
    var ending: Ending, drain: Seconds, floodBaseline = false

    /// `plateau`: the count stopped rising while work still waited; `outcome` by `Responsiveness`.
    struct Result {
        var metrics: Metrics, series: [String: [[Double]]], blocks: Blocks, plateau: Bool, outcome: Outcome
    }

    /// Runs the watch on the calling thread; `start` submits the work and must return at once.
    /// Needs the `.stallWatch` and `.threadTimeline` instruments.
    func run(_ context: VariantContext, start: (Blocks) -> Void) -> Result {
        let p = context.parameters(PoolParameters.self), expected = p.tasks
        guard let sampler = context.threads else {
            preconditionFailure("a probing variant declares instruments: [.threadTimeline]")
        }
        let idle = QueueProbes.idleBaseline(
            .global(), count: floodBaseline ? p.floodIdleProbes : p.idleProbes, spacing: p.idleSpacing,
            machineDelay: context.machineDelay)
        let blocks = Blocks(context), probes = QueueProbes(.global())
        start(blocks)

        // Probe on an absolute 100 ms grid until the watch ends.
        var next = blocks.origin, peak = sampler.peakSoFar, lastRise = blocks.origin
        var plateau = false, watching = true
        while watching {
            probes.submit()
            next += p.probeInterval
            MonotonicClock.sleep(until: next)
            let now = MonotonicClock.now()
            switch ending {
            case .after(let limit): watching = now - blocks.origin < limit
            case .allStarted(let limit): watching = now - blocks.origin < limit && blocks.started < expected
            case .plateau(let flat, let limit):
                if sampler.peakSoFar > peak { peak = sampler.peakSoFar; lastRise = now }
                plateau = now - lastRise >= flat
                watching = now - blocks.origin < limit && blocks.started < expected && !plateau
            }
        }
        let watchEnd = MonotonicClock.now()
        // Probes still queued get a little time to start, so their waits are measured rather
        // than bounded; those that do not are kept as lower bounds.
        while probes.waiting > 0 && MonotonicClock.now() < watchEnd + drain { MonotonicClock.sleep(for: 0.01) }
        let end = MonotonicClock.now()
        let timeline = sampler.stop().since(blocks.origin)
        let starts = blocks.starts
        plateau = plateau && blocks.started < expected

        var m: Metrics = [
            PoolMetric.tasks: Double(expected), PoolMetric.blockS: p.block,
            PoolMetric.blocksStarted: Double(starts.count),
            PoolMetric.runningMax: Double(blocks.maxRunning), PoolMetric.watchS: watchEnd - blocks.origin,
            PoolMetric.threadsBefore: Double(timeline.first), PoolMetric.threadsPeak: Double(timeline.peak),
            PoolMetric.threadsAdded: Double(timeline.peak - timeline.first),
            PoolMetric.threadsFinal: Double(timeline.final),
            PoolMetric.blocksWaited: Double(starts.filter { $0 >= p.block / 2 }.count),
        ]
        if starts.count >= expected { m[PoolMetric.blocksLastStartS] = starts.last }
        if case .plateau = ending {
            // Growth up to the moment the count reached its peak, and the cap itself when the
            // count stopped rising with work still waiting.
            let reached = timeline.firstTime(reaching: timeline.peak) ?? timeline.duration
            m[PoolMetric.capReachedS] = reached
            m[PoolMetric.growthThreadsPerS] = timeline.growthRate(in: 0...max(reached, 0.05))
            if plateau {
                m[PoolMetric.capThreads] = Double(timeline.peak)
                m[PoolMetric.capWorkers] = Double(starts.count)  // each started block holds its worker for good
            }
        } else {
            // Growth while blocks were still waiting: after the last one started the pool has
            // no reason to grow.
            let growthEnd = starts.count >= expected ? (starts.last ?? timeline.duration) : timeline.duration
            m[PoolMetric.growthThreadsPerS] = timeline.growthRate(in: 0...max(growthEnd, 0.05))
        }
        let idleNet = LatencySummary(idle.net)
        m.set([
            PoolMetric.idleNetP50Ms: idleNet.map { $0.p50 * 1000 },
            PoolMetric.idleNetP99Ms: idleNet.map { $0.p99 * 1000 },
        ])
        let waits = probes.waits(at: end, machineDelay: context.machineDelay)
        for (prefix, values) in [
            ("idle", idle.waits), ("probe", waits.probe), ("control", waits.control), ("excess", waits.excess),
        ] {
            if let summary = LatencySummary(values) {
                m.merge(summary.metrics(prefix: prefix, unit: "_ms", scale: 1000))
            }
        }
        m.set([
            PoolMetric.probeCount: Double(waits.probe.count), PoolMetric.probeUnstarted: Double(waits.unstarted),
            PoolMetric.probeBehind: Double(probes.behind(starts.map { $0 + blocks.origin }, at: end)),
            PoolMetric.wallS: end - blocks.origin,
        ])

        var series = probes.series(origin: blocks.origin, at: end)
        series[SeriesKey.threads] = timeline.series()
        series["started"] = Blocks.series(starts)
        return Result(metrics: m, series: series, blocks: blocks, plateau: plateau, outcome: Responsiveness.outcome(m))
    }
}

extension ProbeWindow.Result {
    func record(
        outcome: Outcome? = nil, extra: Metrics = Metrics(), evidence: String? = nil, mechanism: Evidence? = nil
    ) -> VariantRecord {
        var m = metrics
        m.merge(extra)
        return VariantRecord(
            outcome: outcome ?? self.outcome, metrics: m, evidence: evidence, series: series, mechanism: mechanism)
    }

    /// The probes' figures in one line, for a record's evidence.
    var probeLine: String {
        let m = metrics, ms = PoolVerdicts.ms
        return "probes waited p50 \(ms(m[PoolMetric.probeP50Ms] ?? 0)), p99 \(ms(m[PoolMetric.probeP99Ms] ?? 0)) "
            + "(beyond a same-moment control p50 \(ms(m[PoolMetric.excessP50Ms] ?? 0)), p99 \(ms(m[PoolMetric.excessP99Ms] ?? 0)); "
            + "the controls, on a private serial queue, waited p99 \(ms(m[PoolMetric.controlP99Ms] ?? 0))); "
            + "idle p50 \(ms(m[PoolMetric.idleP50Ms] ?? 0)), "
            + "p99 \(ms(m[PoolMetric.idleP99Ms] ?? 0)) (\(ms(m[PoolMetric.idleNetP99Ms] ?? 0)) net of machine stalls)"
    }

    /// The mechanism of a pool that made probes wait: blocks seen holding its threads (counted
    /// from inside them, later ones waiting for earlier ones) and probes seen queued behind them.
    var heldAndBehind: Evidence {
        let m = metrics, figure = { (key: String) in m[key] ?? 0 }
        let atOnce = figure(PoolMetric.runningMax), waited = figure(PoolMetric.blocksWaited)
        let tasks = Format.count(figure(PoolMetric.tasks)), behind = figure(PoolMetric.probeBehind)
        let before = Format.count(figure(PoolMetric.threadsBefore)), peak = Format.count(figure(PoolMetric.threadsPeak))
        let probes = Format.count(figure(PoolMetric.probeCount))
        return .all([
            .when(
                waited > 0 && atOnce > 0,
                "at most \(Format.count(atOnce)) blocks ran at once and \(Format.count(waited)) of \(tasks) waited for a "
                    + "held thread (threads \(before) → \(peak))",
                otherwise: "no block was seen waiting for a thread another block held"),
            .when(
                behind > 0,
                "\(Format.count(behind)) of \(probes) probes were seen queued behind blocks that started after them",
                otherwise: "no probe was seen waiting behind a block"),
        ])
    }
}

/// The one rule for what probes felt, each probe's wait taken beyond its same-moment control (its
/// excess), so a stall of the whole machine counts for neither outcome. `responsive`: the excess
/// p99 stays within `responsiveMultiple` × the net idle p99, or under `instant` (idle probes take
/// µs, and one scheduler hiccup moves that by ms). `starved`: not responsive, and the excess
/// reaches `starvation` × the net idle latency at p50 and p99. `slowed`: neither.
enum Responsiveness {
    static let responsiveMultiple = Threshold("responsive", 2, "× idle p99")
    static let instant = Threshold("instant", 100, "ms")
    static let starvation = Threshold("starved", 10, "× idle")

    static func limitMs(idleP99Ms: Double) -> Double { max(responsiveMultiple.value * idleP99Ms, instant.value) }

    static func outcome(_ m: Metrics) -> Outcome {
        guard let excess50 = m[PoolMetric.excessP50Ms], let excess99 = m[PoolMetric.excessP99Ms],
            let idle50 = m[PoolMetric.idleNetP50Ms] ?? m[PoolMetric.idleP50Ms],
            let idle99 = m[PoolMetric.idleNetP99Ms] ?? m[PoolMetric.idleP99Ms]
        else { return .failed }
        if excess99 <= limitMs(idleP99Ms: idle99) { return .responsive }
        let factor = starvation.value
        return excess50 >= factor * max(idle50, 1e-6) && excess99 >= factor * max(idle99, 1e-6) ? .starved : .slowed
    }
}
