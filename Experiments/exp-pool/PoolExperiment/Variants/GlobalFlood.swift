import Dispatch
import LabHarness

/// The article's mistake: every block blocks a global-queue thread of a bounded pool (Linux: as
/// wide as the cores, then one more worker a second up to 255; Darwin: a worker per blocked one
/// up to the limit it states, which the default flood is sized past). Outcome by `Responsiveness`.
/// With `--find-cap` the blocks never finish and the watch lasts until the thread count stops
/// rising: that count is the cap; probes that never start are kept as lower bounds.
enum GlobalFlood {
    static func run(_ context: VariantContext) -> VariantRecord {
        let p = context.parameters(PoolParameters.self)
        let ending: ProbeWindow.Ending =
            p.findCap
            ? .plateau(flat: PoolParameters.capPlateau, within: PoolParameters.capBudget)
            : .allStarted(within: p.duration)
        let window = ProbeWindow(ending: ending, drain: p.findCap ? 0 : p.block + 1.5, floodBaseline: true)
        let hold = p.block, forever = p.findCap, never = DispatchSemaphore(value: 0)
        let result = window.run(context) { blocks in
            for _ in 0..<p.tasks {
                DispatchQueue.global().async {
                    // Holds a pool thread on purpose: the article's sleep(30), or for good when looking for the cap.
                    if forever { blocks.begin(); never.wait() } else { blocks.hold(hold) }
                }
            }
        }
        var extra = Metrics()
        extra[PoolMetric.poolStatedLimit] = DispatchPoolSize.current.statedLimit.map(Double.init)
        guard p.findCap else {
            return result.record(
                extra: extra, evidence: result.probeLine + "; \(Responsiveness.starvation) at p50 and p99 is `starved`",
                mechanism: result.heldAndBehind)
        }
        let m = result.metrics, waiting = p.tasks - result.blocks.started
        let outcome = capSearchOutcome(plateau: result.plateau, waiting: waiting, probes: result.outcome)
        let search =
            result.plateau
            ? "flat at \(Format.count(m[PoolMetric.threadsPeak] ?? 0)) threads for \(Format.seconds(PoolParameters.capPlateau)) with \(waiting) blocks still waiting"
            : waiting <= 0
                ? "all \(p.tasks) blocks got a thread before the count stopped rising: no cap in sight"
                : "still rising after \(Format.seconds(PoolParameters.capBudget))"
        let evidence = search + "; " + result.probeLine + "; \(Responsiveness.starvation) at p50 and p99 is `starved`"
        return result.record(outcome: outcome, extra: extra, evidence: evidence, mechanism: result.heldAndBehind)
    }

    /// A cap search's outcome. `capped` carries the variant's claim that probes starve, so it
    /// needs both: the count stopped rising with blocks still waiting, and the probes were
    /// `starved` by `Responsiveness`. A plateau the probes did not feel is graded by what they
    /// felt (`responsive` is forbidden), and the cap stays in the metrics for
    /// `pool.global-queue-is-bounded`. No plateau: `completed` when every block got a thread,
    /// else `timedOut` (the budget ran out with the count still rising).
    static func capSearchOutcome(plateau: Bool, waiting: Int, probes: Outcome) -> Outcome {
        guard plateau else { return waiting <= 0 ? .completed : .timedOut }
        return probes == .starved ? .capped : probes
    }
}
