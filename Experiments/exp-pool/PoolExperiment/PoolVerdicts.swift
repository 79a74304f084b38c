import LabHarness

/// The figures exp-pool's claims are judged against, each named once, and the cross-variant claims;
/// latencies are judged net of machine stalls (probes against paired controls, gaps the trial's).
enum PoolVerdicts {
    /// "Slow" growth: Linux adds about one thread a second; a thread per block would come at once.
    static let slowGrowth = Threshold("slow growth", 5, "threads/s")
    /// Where the kernel states its pool's limit, a few threads over it (manager, timers) still count.
    static let statedLimitSlack = Threshold("stated-limit slack", 2, "threads")
    /// Behind a gate, the pool may grow this much past the gate's width.
    static let gateSlack = Threshold("gate slack", 2, "threads")
    /// Through the flood alone, the heartbeat's largest gap net of the machine stays within this.
    static let sparedGap = Threshold("spared gap", 3, "frames")
    /// ... and it ticks at least this share of the frames the machine left it.
    static let sparedTicks = Threshold("ticks kept", 80, "%")
    /// Timers fired together: their handlers' starts spread no wider than this, net of the
    /// machine. A tenth of the delay is their leeway; blocks holding threads come a block apart.
    static let firedTogether = Threshold("fired together", 0.5, "× --block")
    /// A freeze: the gap while the main thread waits, at least half a block and this many frames,
    /// so that it stands well clear of the largest gap the flood alone may cost (`sparedGap`).
    static let freezeFloor = Threshold("freeze floor", 0.5, "× --block")
    static let freezeFactor = Threshold("freeze", 10, "frames")

    static func globalQueueIsBounded(_ inputs: FindingInputs) -> Verdict {
        let flood = inputs[PoolVariant.globalFlood]
        guard let mechanism = flood.mechanism, let tasks = flood[PoolMetric.tasks],
            let atOnce = flood[PoolMetric.runningMax],
            let before = flood[PoolMetric.threadsBefore], let peak = flood[PoolMetric.threadsPeak]
        else {
            return .notJudged("global-flood measured no threads (\(flood.outcome))")
        }
        let rate = flood[PoolMetric.growthThreadsPerS] ?? 0
        let growth = "threads \(count(before)) → \(count(peak)), growing \(Format.decimal(rate, places: 1)) threads/s"
        if flood[PoolMetric.capReachedS] != nil {
            guard let cap = flood[PoolMetric.capThreads], let workers = flood[PoolMetric.capWorkers] else {
                // Every block got a thread: no cap below the flood, which refutes the claim. A
                // budget that ran out with the count still rising found neither a cap nor its
                // absence: the run lacks the figure the claim rests on.
                let found = flood.evidence ?? flood.outcome.rawValue
                guard flood.outcome == .completed else {
                    return .notJudged("no cap measured: \(found)", reason: .variantMissing)
                }
                return Verdict(symptom: false, mechanism: mechanism, "no cap found: \(found)")
            }
            return Verdict(
                symptom: true, mechanism: mechanism,
                "\(count(tasks)) blocks that never finish: the pool stopped at \(count(workers)) busy workers "
                    + "(\(count(cap)) threads in all) after \(Format.seconds(flood[PoolMetric.capReachedS] ?? 0)); \(growth)"
            )
        }
        if let limit = flood[PoolMetric.poolStatedLimit] {
            // Darwin: no slow growth to see (a worker comes as soon as one blocks); the bound
            // is the limit the kernel stated, and more blocks than that waited.
            return Verdict(
                symptom: atOnce < tasks && atOnce <= limit + statedLimitSlack.value, mechanism: mechanism,
                "\(count(tasks)) blocks: at most \(count(atOnce)) ran at once against the kernel's stated limit of \(count(limit)) "
                    + "(kern.wq_max_constrained_threads); \(growth)")
        }
        let started = count(flood[PoolMetric.blocksStarted] ?? 0), watched = flood[PoolMetric.watchS] ?? 0
        let last =
            flood[PoolMetric.blocksLastStartS].map { "the last started after \(seconds: $0)" }
            ?? "\(started) of \(count(tasks)) started in \(seconds: watched)"
        return Verdict(
            symptom: atOnce < tasks && rate <= slowGrowth.value, mechanism: mechanism,
            "\(count(tasks)) blocks of \(Format.seconds(flood[PoolMetric.blockS] ?? 0)): at most \(count(atOnce)) ran at once, \(last); \(growth); "
                + "the cap itself needs --find-cap (minutes)")
    }

    /// Why the gated variant's claim cannot hold on this run: its gate is not narrower than
    /// the pool (libdispatch's pool starts as wide as the CPUs in the affinity mask), so the
    /// gate's blocks fill every worker and nothing is left for the probes, whatever the gate
    /// does. On one usable CPU no gate is narrower than the pool.
    static func gateNotNarrowerThanThePool(_ options: ParsedOptions) -> String? {
        gateNotNarrower(
            gate: PoolParameters(options).gate, budget: .current, statedLimit: DispatchPoolSize.current.statedLimit)
    }

    static func gateNotNarrower(gate: Int, budget: CPUBudget, statedLimit: Int?) -> String? {
        // Where the kernel adds a worker as soon as one blocks (Darwin), the pool is wider than any gate.
        guard statedLimit == nil else { return nil }
        let width = budget.poolWidth
        guard gate >= width else { return nil }
        let why = width == 1 ? "; on one usable CPU no gate can be narrower than the pool" : ""
        return "the gate (\(gate)) is not narrower than the pool's \(width) starting workers (\(budget.statement)), "
            + "so its blocks fill the pool and the claim's premise, a gate narrower than the pool, does not hold\(why)"
    }

    /// Why the cooperative claim cannot hold on this run: Swift's global executor on Linux is a
    /// dispatch queue as wide as the logical CPUs (`dispatch_queue_set_width(queue, -3)`, the
    /// CPUs online) drawing on libdispatch's pool, which starts as wide as the affinity mask.
    /// With fewer CPUs in the mask than online (`taskset`, a cpuset), blocking tasks run as
    /// many at once as the pool happens to have threads: one, or two once its monitor adds one.
    static func cooperativeWidthUnsettled(_ options: ParsedOptions) -> String? {
        cooperativeWidthUnsettled(budget: .current)
    }

    static func cooperativeWidthUnsettled(budget: CPUBudget) -> String? {
        guard let affinity = budget.affinity, affinity < budget.online else { return nil }
        return
            "Swift's cooperative queue is as wide as the \(budget.online) CPUs online but libdispatch's pool starts with the "
            + "\(affinity) of the affinity mask (\(budget.statement)), so how many blocking tasks run at once depends on when the "
            + "pool adds a thread, not on the cores"
    }

    /// Why this run's flood cannot exhaust the pool (fewer blocks than a stated limit), or `nil`.
    static func floodFitsThePool(_ options: ParsedOptions) -> String? {
        DispatchPoolSize.current.tooFewToExhaust(PoolParameters(options).tasks, what: "blocks")
    }

    static func cooperativePoolIsCoreWide(_ inputs: FindingInputs) -> Verdict {
        let blocking = inputs[PoolVariant.cooperativeBlocking], sleeping = inputs[PoolVariant.cooperativeSleep]
        guard let cores = blocking[PoolMetric.cores], let n = blocking[PoolMetric.tasks],
            let atOnce = blocking[PoolMetric.runningMax],
            let started = blocking[PoolMetric.blocksStarted], let hold = blocking[PoolMetric.holdS],
            let sleepN = sleeping[PoolMetric.tasks], let sleepAtOnce = sleeping[PoolMetric.runningMax]
        else {
            return .notJudged("the cooperative variants measured nothing")
        }
        // The mechanism: blocking tasks seen holding their threads (counted from inside the
        // tasks, enough of them to fill every core) and sleeping tasks seen suspended for their hold.
        let mechanism = Evidence.all([
            .when(
                started >= cores,
                "\(count(started)) blocking tasks were seen holding their thread \(Format.seconds(hold)) each",
                otherwise: "only \(count(started)) blocking tasks started, fewer than the \(count(cores)) cores"),
            .when(
                (sleeping[PoolMetric.wallS] ?? 0) >= hold, "sleeping tasks were suspended \(Format.seconds(hold))",
                otherwise: "the sleeping tasks were not seen suspended"),
        ])
        return Verdict(
            symptom: atOnce == cores && sleepAtOnce == sleepN, mechanism: mechanism,
            "\(count(n)) tasks blocking for \(Format.seconds(hold)) on \(count(cores)) cores: \(count(atOnce)) at once, "
                + "\(Format.seconds(blocking[PoolMetric.wallS] ?? 0)) in all; with await Task.sleep: \(count(sleepAtOnce)) of \(count(sleepN)) at once, "
                + "\(Format.seconds(sleeping[PoolMetric.wallS] ?? 0)) in all")
    }

    static func floodSparesMainThread(_ inputs: FindingInputs) -> Verdict {
        let v = inputs[PoolVariant.mainThread]
        guard let ticks = v[PoolMetric.spareTicks], let window = v[PoolMetric.spareWindowS],
            let gap = v[PoolMetric.spareGapMaxMs],
            let net = v[PoolMetric.spareGapMaxNetMs], let waiting = v[PoolMetric.spareBlocksWaiting],
            let tasks = v[PoolMetric.tasks]
        else {
            return .notJudged("main-thread measured no heartbeat (\(v.outcome))")
        }
        // The pool must really have been exhausted meanwhile (blocks still waiting), and the
        // heartbeat must have kept coming: most of the frames the machine left it (a stall
        // costs every thread its ticks; the control measures how long), and no long gap net
        // of what the control lost over the same gap.
        let frameMs = MainThread.frame * 1000
        let mechanism = Evidence.when(
            waiting > 0,
            "\(count(waiting)) of \(count(tasks)) blocks still waited for a pool thread while the heartbeat was watched",
            otherwise: "every block had a thread by the end of the watch: the pool was not seen exhausted")
        // The frames the machine left it: the window less the larger of the control thread's
        // delay and the main thread's own run-queue wait, as each gap is judged (`MainThread.gaps`):
        // a tick cannot come while the thread that fires it waits for a CPU.
        let control = v[PoolMetric.spareControlDelayS] ?? 0, runQueue = v[PoolMetric.spareMainRunQueueWaitS] ?? 0
        let machine = max(control, runQueue), frames = max(0, window - machine) / MainThread.frame
        let steady = ticks >= sparedTicks.value / 100 * frames && net <= sparedGap.value * frameMs
        let stall = v[Metrics.controlStallMax] ?? 0
        let left = machine >= MainThread.frame ? ", \(count(frames.rounded(.down))) left by the machine" : ""
        return Verdict(
            symptom: steady, mechanism: mechanism,
            "the main thread ticked \(count(ticks)) times in \(Format.seconds(window)) (\(count(window / MainThread.frame)) frames\(left)); "
                + "largest gap \(ms(gap)) (\(Format.decimal(gap / frameMs, places: 1)) frames)"
                + (gap - net >= 5 ? ", \(ms(net)) net of a same-moment control" : "")
                + (stall >= 5 ? "; the control was held up \(ms(stall)) at worst" : "")
                + (runQueue >= MainThread.frame ? "; the main thread waited \(Format.seconds(runQueue)) for a CPU" : ""))
    }

    static func count(_ n: Double) -> String { Format.count(n) }

    /// Milliseconds as the report shows them: `45 µs`, `3.2 ms`, `1.90 s`.
    static func ms(_ value: Double) -> String { Format.seconds(value / 1000) }
}
