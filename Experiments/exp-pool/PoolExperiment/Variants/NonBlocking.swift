import Dispatch
import LabHarness

/// The same delays as timers: `asyncAfter` keeps a deadline in the dispatch manager's timer
/// list, not a thread; a worker is needed only for the instant each handler runs.
enum NonBlocking {
    static func run(_ context: VariantContext) -> VariantRecord {
        let p = context.parameters(PoolParameters.self)
        let window = ProbeWindow(ending: .allStarted(within: p.block + 5), drain: 1)
        let result = window.run(context) { blocks in
            for _ in 0..<p.tasks {
                DispatchQueue.global().asyncAfter(deadline: .now() + p.block) {
                    blocks.begin(); blocks.end()
                }
            }
        }
        // Every timer was set within microseconds of the work's start: its lateness is its start minus one delay.
        let starts = result.blocks.starts, count = Format.count
        let lateness =
            LatencySummary(starts.map { max(0, $0 - p.block) })?.metrics(prefix: "lateness", unit: "_ms", scale: 1000)
            ?? Metrics()
        let m = result.metrics, added = m[PoolMetric.threadsAdded] ?? 0
        let fired = starts.count >= p.tasks, origin = result.blocks.origin
        let spread = startSpread(starts) { context.machineDelay(from: $0 + origin, to: $1 + origin) }
        let outcome = outcome(fired: fired, added: added, cores: p.cores, spreadNet: spread.net, block: p.block)
        var extra = lateness
        extra[PoolMetric.startSpreadS] = spread.raw
        extra[PoolMetric.startSpreadNetS] = spread.net
        let pending = starts.first ?? 0
        let samples = result.series[SeriesKey.threads]?.filter { $0[0] < pending }.count ?? 0
        let mechanism = Evidence.when(
            pending >= p.block / 2 && samples >= 2,
            "\(p.tasks) timers pending together for \(Format.seconds(pending)) before the first fired, the thread count sampled \(samples) times meanwhile",
            otherwise:
                "the timers were not seen pending while the threads were sampled (first fired after \(Format.seconds(pending)), \(samples) samples)"
        )
        return result.record(
            outcome: outcome, extra: extra,
            evidence:
                "\(starts.count) of \(p.tasks) delays of \(Format.seconds(p.block)) fired as timers; \(count(added)) threads added "
                + "(peak \(count(m[PoolMetric.threadsPeak] ?? 0)); at most \(p.cores), the cores, is flat); "
                + "they started within \(Format.seconds(spread.raw)) of each other (\(Format.seconds(spread.net)) net of "
                + "the machine; \(PoolVerdicts.firedTogether) is together)",
            mechanism: mechanism)
    }

    /// How far apart the first and the last of `starts` came, raw and net of what the machine's
    /// same-moment control lost between them (`machineDelay(first, last)`, same clock as `starts`).
    static func startSpread(
        _ starts: [Seconds], machineDelay: (Seconds, Seconds) -> Seconds
    ) -> (raw: Seconds, net: Seconds) {
        guard let first = starts.min(), let last = starts.max() else { return (0, 0) }
        return (last - first, max(0, last - first - machineDelay(first, last)))
    }

    /// `completed`: every delay fired, the pool grew no wider than the cores, and the handlers
    /// started together, their spread net of the machine within `PoolVerdicts.firedTogether`.
    /// The thread count alone cannot tell timers from blocks that hold a thread for the delay:
    /// Linux's pool adds about one thread a second, so such blocks add no more than the cores
    /// in a `--quick` window. Their starts can: held threads free up one block apart, so blocks
    /// that outnumber the pool start in waves at least a block apart, while timers all come due
    /// within their leeway, a tenth of the delay (`_dispatch_after`: `leeway = delta / 10`,
    /// apple-oss-distributions/libdispatch 1542.0.4 `src/source.c:1386`, the same in
    /// swift-corelibs-libdispatch). Either sign of held threads is `heldThreads`.
    static func outcome(fired: Bool, added: Double, cores: Int, spreadNet: Seconds, block: Seconds) -> Outcome {
        let flat = added <= Double(cores), together = spreadNet <= PoolVerdicts.firedTogether.value * block
        return !fired ? .stalled : flat && together ? .completed : .heldThreads
    }
}
