import LabHarness

/// How each finding is judged, from the metrics its variants recorded. Kept apart from the
/// declaration so the rules read on their own. Latencies are judged net of machine stalls:
/// probes against their paired controls, the idle baseline against a control thread.
enum PoolVerdicts {
    /// "Slow" growth: at most this many threads a second. Linux adds about one; a pool that made
    /// a thread per block would add all of them at once.
    static let slowGrowthLimit = 5.0

    static func globalQueueIsBounded(_ inputs: FindingInputs) -> Verdict {
        let flood = inputs[PoolVariant.globalFlood]
        let m = flood.metrics
        guard let tasks = m[PoolMetric.tasks], let atOnce = m[PoolMetric.runningMax], let before = m[PoolMetric.threadsBefore],
              let peak = m[PoolMetric.threadsPeak] else {
            return Verdict(false, "global-flood measured no threads (\(flood.outcome)\(flood.evidence.map { ": \($0)" } ?? ""))")
        }
        let rate = m[PoolMetric.growthThreadsPerS] ?? 0
        let growth = "\(Format.decimal(rate, places: 1)) threads/s"
        if let reached = m[PoolMetric.capReachedS] {
            guard let cap = m[PoolMetric.capThreads], let workers = m[PoolMetric.capWorkers] else {
                return Verdict(false, "no cap found: \(flood.evidence ?? flood.outcome.rawValue)")
            }
            return Verdict(true, "\(Format.count(tasks)) blocks that never finish: the pool stopped at \(Format.count(workers)) busy workers "
                           + "(\(Format.count(cap)) threads in all) after \(Format.seconds(reached)), growing \(growth) on the way")
        }
        let outnumbered = atOnce < tasks
        if let limit = m[PoolMetric.poolStatedLimit] {
            // Darwin: no slow growth to see (a worker comes as soon as one blocks); the bound
            // is the limit the kernel stated, and more blocks than that waited.
            let held = atOnce <= limit + 2
            return Verdict(outnumbered && held,
                           "\(Format.count(tasks)) blocks: at most \(Format.count(atOnce)) ran at once against the kernel's stated limit of "
                           + "\(Format.count(limit)) (kern.wq_max_constrained_threads); threads \(Format.count(before)) → \(Format.count(peak)), growing \(growth)")
        }
        let slow = rate <= slowGrowthLimit
        let started = m[PoolMetric.blocksStarted] ?? 0
        let last = m[PoolMetric.blocksLastStartS].map { "the last started after \(Format.seconds($0))" }
            ?? "\(Format.count(started)) of \(Format.count(tasks)) started in \(Format.seconds(m[PoolMetric.watchS] ?? 0))"
        let block = m[PoolMetric.blockS].map { " of \(Format.seconds($0))" } ?? ""
        return Verdict(outnumbered && slow,
                       "\(Format.count(tasks)) blocks\(block): at most \(Format.count(atOnce)) ran at once, \(last); "
                       + "threads \(Format.count(before)) → \(Format.count(peak)), growing \(growth)"
                       + (slow ? "" : " (more than \(Format.count(slowGrowthLimit))/s)")
                       + "; the cap itself needs --find-cap (minutes)")
    }

    /// Why this run's flood cannot exhaust the pool (fewer blocks than the limit the kernel
    /// states), or `nil` when it can or no limit is stated (Linux).
    static func floodFitsThePool(_ options: ParsedOptions) -> String? {
        DispatchPoolSize.current.tooFewToExhaust(PoolParameters(options).tasks, what: "blocks")
    }

    static func floodStarvesUnrelatedWork(_ inputs: FindingInputs) -> Verdict {
        let m = inputs[PoolVariant.globalFlood].metrics
        guard let p50 = m[PoolMetric.probeP50Ms], let p99 = m[PoolMetric.probeP99Ms], let idle50 = m[PoolMetric.idleP50Ms],
              let idle99 = m[PoolMetric.idleP99Ms] else {
            return Verdict(false, "global-flood measured no probes")
        }
        // The idle baseline net of machine stalls (a same-moment control thread), so that one
        // stall while it was measured cannot shrink the ratio; the raw figures are quoted.
        let net50 = m[PoolMetric.idleNetP50Ms] ?? idle50, net99 = m[PoolMetric.idleNetP99Ms] ?? idle99
        let r50 = p50 / max(net50, 1e-6), r99 = p99 / max(net99, 1e-6)
        let unstarted = m[PoolMetric.probeUnstarted] ?? 0
        let still = unstarted > 0 ? "; \(Format.count(unstarted)) of \(Format.count(m[PoolMetric.probeCount] ?? 0)) probes never started (counted as lower bounds)" : ""
        return Verdict(r50 >= 10 && r99 >= 10,
                       "probes waited p50 \(ms(p50)), p99 \(ms(p99)) under the flood; idle p50 \(ms(idle50)), p99 \(ms(idle99))"
                       + (idle99 - net99 >= 5 ? " (\(ms(net99)) without a machine stall)" : "") + " "
                       + "(\(Format.times(r50)) and \(Format.times(r99)))\(still)")
    }

    static func gateKeepsLatency(_ inputs: FindingInputs) -> Verdict {
        let m = inputs[PoolVariant.gated].metrics
        guard let p99 = m[PoolMetric.probeP99Ms], let excess99 = m[PoolMetric.excessP99Ms], let rawIdle99 = m[PoolMetric.idleP99Ms],
              let added = m[PoolMetric.threadsAdded], let gate = m[PoolMetric.gate] else {
            return Verdict(false, "gated measured no probes")
        }
        let idle99 = m[PoolMetric.idleNetP99Ms] ?? rawIdle99
        let limit = Responsiveness.limitMs(idleP99Ms: idle99)
        let fast = excess99 <= limit
        let narrow = added <= gate + 2
        let kind = inputs.options.string("gate-with")
        let control = m[PoolMetric.controlP99Ms].map { ", same-moment control p99 \(ms($0))" } ?? ""
        return Verdict(fast && narrow,
                       "gate \(Format.count(gate)) (\(kind)): probe p99 \(ms(p99))\(control), excess over the control p99 \(ms(excess99)); "
                       + "idle p99 \(ms(rawIdle99))" + (rawIdle99 - idle99 >= 5 ? " (\(ms(idle99)) without a machine stall)" : "") + ", limit \(ms(limit)) (2 × idle, at least 100 ms); "
                       + "\(threads(added)) above the idle pool (at most gate + 2 allowed); "
                       + "\(Format.count(m[PoolMetric.blocksStarted] ?? 0)) of \(Format.count(m[PoolMetric.tasks] ?? 0)) blocks ran in \(Format.seconds(m[PoolMetric.watchS] ?? 0))")
    }

    static func timersHoldNoThreads(_ inputs: FindingInputs) -> Verdict {
        let nb = inputs[PoolVariant.nonBlocking]
        let m = nb.metrics
        guard let tasks = m[PoolMetric.tasks], let fired = m[PoolMetric.blocksStarted], let added = m[PoolMetric.threadsAdded],
              let peak = m[PoolMetric.threadsPeak] else {
            return Verdict(false, "non-blocking measured nothing (\(nb.outcome))")
        }
        let cores = Double(inputs.platform.cpus)
        let flat = added <= cores
        let late = m[PoolMetric.latenessP99Ms].map { " (lateness p99 \(ms($0)))" } ?? ""
        let block = m[PoolMetric.blockS].map { " of \(Format.seconds($0))" } ?? ""
        return Verdict(fired >= tasks && flat,
                       "\(Format.count(fired)) of \(Format.count(tasks)) delays\(block) fired as timers\(late); "
                       + "\(threads(added)) above the idle pool (peak \(Format.count(peak)); at most \(Format.count(cores)), the cores, allowed)")
    }

    static func cooperativePoolIsCoreWide(_ inputs: FindingInputs) -> Verdict {
        let blocking = inputs[PoolVariant.cooperativeBlocking].metrics
        let sleeping = inputs[PoolVariant.cooperativeSleep].metrics
        guard let cores = blocking[PoolMetric.cores], let n = blocking[PoolMetric.tasks], let atOnce = blocking[PoolMetric.runningMax],
              let sleepN = sleeping[PoolMetric.tasks], let sleepAtOnce = sleeping[PoolMetric.runningMax] else {
            return Verdict(false, "the cooperative variants measured nothing")
        }
        let blockWall = blocking[PoolMetric.wallS].map { ", \(Format.seconds($0)) in all" } ?? ""
        let sleepWall = sleeping[PoolMetric.wallS].map { ", \(Format.seconds($0)) in all" } ?? ""
        let hold = blocking[PoolMetric.holdS].map { " for \(Format.seconds($0))" } ?? ""
        return Verdict(atOnce == cores && sleepAtOnce == sleepN,
                       "\(Format.count(n)) tasks blocking\(hold) on \(Format.count(cores)) cores: \(Format.count(atOnce)) at once\(blockWall); "
                       + "with await Task.sleep: \(Format.count(sleepAtOnce)) of \(Format.count(sleepN)) at once\(sleepWall)")
    }

    static func floodSparesMainThread(_ inputs: FindingInputs) -> Verdict {
        let v = inputs[PoolVariant.mainThread]
        let m = v.metrics
        guard let ticks = m[PoolMetric.spareTicks], let window = m[PoolMetric.spareWindowS], let gap = m[PoolMetric.spareGapMaxMs],
              let net = m[PoolMetric.spareGapMaxNetMs], let waiting = m[PoolMetric.spareBlocksWaiting], let tasks = m[PoolMetric.tasks] else {
            return Verdict(false, "main-thread measured no heartbeat (\(v.outcome)\(v.evidence.map { ": \($0)" } ?? ""))")
        }
        let frameMs = MainThread.frame * 1000
        // The pool must really have been exhausted meanwhile (blocks still waiting), and the
        // heartbeat must have kept coming: most of the frames the machine left it (a stall
        // costs every thread its ticks; the control thread measures how long), and no gap over
        // 3 frames net of what the control thread lost over the same gap.
        let exhausted = waiting > 0
        let machine = m[PoolMetric.spareControlDelayS] ?? 0
        let steady = ticks >= 0.8 * max(0, window - machine) / MainThread.frame && net <= 3 * frameMs
        let stall = m[StallWatch.worstMetric] ?? 0
        return Verdict(exhausted && steady,
                       "while \(Format.count(waiting)) of \(Format.count(tasks)) blocks still waited for a pool thread, the main thread ticked \(Format.count(ticks)) times in \(Format.seconds(window)) "
                       + "(\(Format.count(window / MainThread.frame)) frames); largest gap \(ms(gap)) (\(Format.decimal(gap / frameMs, places: 1)) frames)"
                       + (gap - net >= 5 ? ", \(ms(net)) net of a same-moment control" : "")
                       + (stall >= 5 ? "; the control was held up \(ms(stall)) at worst" : ""))
    }

    static func mainWaitingOnPoolFreezes(_ inputs: FindingInputs) -> Verdict {
        let v = inputs[PoolVariant.mainThread]
        let m = v.metrics
        guard let waited = m[PoolMetric.mainWaitS], let gap = m[PoolMetric.freezeGapMaxMs], let frames = m[PoolMetric.freezeGapMaxFrames],
              let before = m[PoolMetric.spareGapMaxMs] else {
            return Verdict(false, "main-thread measured no wait (\(v.outcome)\(v.evidence.map { ": \($0)" } ?? ""))")
        }
        // A freeze a stall cannot fake: the no-tick gap is judged against half the time a flood
        // block holds its thread (half a second by default) and against the heartbeat's own
        // largest gap earlier in the same run, taken net of a same-moment control (at least a
        // frame), so a stall then does not raise the bar. Half a block, not a fixed time: how
        // long the main thread's block waits depends on when a held thread comes free, which
        // can be just under one block (492 ms for 500 ms blocks, once under load), so a fixed
        // half second sat on the boundary with `--quick`'s 500 ms blocks.
        let basis = max(m[PoolMetric.spareGapMaxNetMs] ?? before, MainThread.frame * 1000)
        let floor = 500 * (m[PoolMetric.blockS] ?? 1)
        let ok = v.outcome == .frozen && gap >= floor && gap >= 10 * basis
        let gaveUp = m[PoolMetric.mainWaitReturned] == 0 ? " (the wait hit its bound: a lower bound)" : ""
        return Verdict(ok, "the main thread waited \(Format.seconds(waited)) for its block on the flooded global queue\(gaveUp): no tick for \(ms(gap)), "
                       + "\(Format.count(frames.rounded(.down))) frames of 16.7 ms missed; before, through the flood, the largest gap was \(ms(before)) (\(Format.times(gap / max(before, 1e-3))))")
    }

    /// `1 thread`, `3 threads`.
    static func threads(_ n: Double) -> String { "\(Format.count(n)) thread" + (n == 1 ? "" : "s") }

    /// Milliseconds as the report shows them: `45 µs`, `3.2 ms`, `1.90 s`.
    static func ms(_ value: Double) -> String { Format.seconds(value / 1000) }
}
