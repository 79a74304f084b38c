import Dispatch
import LabHarness

/// The seed's mistake: every block blocks a global-queue thread.
///
/// `DispatchQueue.global()` is a bounded pool, not a thread per block. On Linux its default-
/// priority pool starts as wide as the cores; a monitor on the dispatch manager thread then adds
/// one worker a second while every worker is blocked, up to 255. Blocks, and any unrelated work
/// queued behind them, wait their turn. On Darwin the kernel adds a worker as soon as one
/// blocks, up to the limit it states (`DispatchPoolSize`), and the default flood is sized past it.
///
/// With `--find-cap` the blocks never finish and the watch lasts until the thread count stops
/// rising: that count is the cap. Probes submitted meanwhile never start; they are reported with
/// the time they had waited (lower bounds). The child ends with `_exit`, which takes the parked
/// workers with it.
enum GlobalFlood {
    static func run(_ context: VariantContext) -> VariantRecord {
        let p = PoolParameters(context.options)
        let ending: ProbeWindow.Ending = p.findCap
            ? .plateau(flat: PoolParameters.capPlateau, within: PoolParameters.capBudget)
            : .allStarted(within: p.duration)
        let window = ProbeWindow(parameters: p, idleProbes: p.floodIdleProbes, expected: p.tasks, ending: ending, drain: p.findCap ? 0 : p.block + 1.5)
        let hold = p.block
        let forever = p.findCap
        let never = DispatchSemaphore(value: 0)
        let result = window.run(context) { ledger in
            for _ in 0..<p.tasks {
                DispatchQueue.global().async {
                    ledger.begin()
                    // Holds a pool thread on purpose: the seed's sleep(30), or for good when
                    // looking for the cap.
                    if forever { never.wait() } else { MonotonicClock.sleep(for: hold) }
                    ledger.end()
                }
            }
        }
        var extra: Metrics = [PoolMetric.blockS: p.block]
        if let limit = DispatchPoolSize.current.statedLimit { extra[PoolMetric.poolStatedLimit] = Double(limit) }
        guard p.findCap else { return result.record(extra: extra) }

        let m = result.metrics
        let outcome: Outcome = result.plateau ? .capped : result.ledger.started >= p.tasks ? .completed : .timedOut
        let evidence: String
        switch outcome {
        case .capped:
            evidence = "flat at \(Format.count(m[PoolMetric.threadsPeak] ?? 0)) threads for \(Format.seconds(PoolParameters.capPlateau)) "
                + "with \(p.tasks - result.ledger.started) blocks still waiting"
        case .completed:
            evidence = "all \(p.tasks) blocks got a thread before the count stopped rising: no cap in sight"
        default:
            evidence = "still rising after \(Format.seconds(PoolParameters.capBudget))"
        }
        var record = result.record(outcome: outcome)
        record.evidence = evidence
        return record
    }
}
