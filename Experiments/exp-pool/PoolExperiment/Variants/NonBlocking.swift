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
        let extra =
            LatencySummary(starts.map { max(0, $0 - p.block) })?.metrics(prefix: "lateness", unit: "_ms", scale: 1000)
            ?? Metrics()
        let m = result.metrics, added = m[PoolMetric.threadsAdded] ?? 0
        let fired = starts.count >= p.tasks, flat = added <= Double(p.cores)
        let outcome: Outcome = !fired ? .stalled : flat ? .completed : .heldThreads
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
                + "(peak \(count(m[PoolMetric.threadsPeak] ?? 0)); at most \(p.cores), the cores, is flat)",
            mechanism: mechanism)
    }
}
