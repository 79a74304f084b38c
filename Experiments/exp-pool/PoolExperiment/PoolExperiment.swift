import LabHarness

/// exp-pool: the article's thread-pool exhaustion (ChenYilong, iOSBlog, "避免使用GCD-Global队列创建
/// Runloop常驻线程": 10000 blocks that each `sleep(30)` on the global queue freeze the app),
/// declared like a jcstress test: flags, variants with the outcomes they expect, findings.
public let poolExperiment = ExperimentDefinition(
    name: "pool",
    executable: "exp-pool",
    question: "Does blocking work on the global queue freeze unrelated work?",
    about: """
        Floods DispatchQueue.global() with blocks that each hold their thread, as the article's 10000 \
        blocks of sleep(30) did, and measures the pool's threads over time and the wait of a tiny \
        probe block submitted every 100 ms, next to the same probes on an idle pool. Every \
        variant runs in its own child process, so each starts on a fresh pool.
        Default: 20 blocks of 1 s; this 2-core Linux pool starts with 2 or 3 workers and adds about \
        one a second, so they take about 4 s to all start; about 12 s in all. The gate is one slot \
        narrower than the cores, as Linux's default pool is as wide as the cores until its monitor \
        adds a thread (try --gate 2). Swift-concurrency variants run 4 tasks per core, each holding \
        a quarter of --block. --quick: 8 blocks of 0.5 s, 1.5 s windows, under 6 s in all.
        --find-cap floods with at least 400 blocks that never finish and watches until the thread \
        count has not risen for 10 s: about 4 to 5 minutes here, so it is not in the default run.
        """,
    flags: [
        .integer(
            "tasks", default: PoolParameters.defaultTasks, quick: PoolParameters.quickTasks, range: 1...100_000,
            help: PoolParameters.tasksHelp),
        .seconds(
            "block", default: 1, quick: 0.5, range: 0.01...60,
            help: "how long each block holds its thread (the article: sleep(30))"),
        .seconds(
            "duration", default: 6, quick: 1.5, range: 0.5...600,
            help: "how long probes run beside the work (the flood stops sooner once every block started)"),
        .integer(
            "gate", default: defaultGateWidth, range: 1...255,
            help:
                "blocks the gated variant lets into the pool at once (default: the CPUs in the affinity mask - 1, at least 1)"
        ),
        .choice(
            "gate-with", GateKind.self, default: .semaphore,
            help: "how the gated variant keeps at most --gate blocks in the pool (each way is a case of GateKind)"),
        .toggle(
            "find-cap", help: "flood with blocks that never finish until the thread count stops rising (minutes)",
            reportKey: "find_cap"),
    ],
    variants: [
        Variant(
            PoolVariant.globalFlood, "every block blocks a global-queue thread (the article)",
            expect: [
                .expected(.starved, "probes waited behind the flood: the pool is bounded"),
                .expected(
                    .capped, "--find-cap: the thread count stopped rising with blocks still waiting, and probes starved"),
                .forbidden(.responsive, "probes ran at once: the pool kept a thread free for them"),
                .interesting(.slowed, "probes waited, but less than the starvation rule's multiple of the idle pool"),
                .interesting(.completed, "--find-cap: every block got a thread (fewer blocks than the cap)"),
                .interesting(.timedOut, "--find-cap: still rising when its budget ran out"),
            ],
            claim: Claim(
                "pool.flood-starves-unrelated-work",
                "probes queued behind the flood's blocks wait, beyond a same-moment control, at least "
                    + "\(Format.number(Responsiveness.starvation.value)) x the idle latency, at p50 and at p99"),
            time: .from(\PoolParameters.floodTime), instruments: probing,
            progressMetric: PoolMetric.blocksStarted, body: GlobalFlood.run),
        Variant(
            PoolVariant.gated, "the same blocks, at most --gate of them in the pool at once",
            expect: [
                .expected(.responsive, "probes started about as fast as on the idle pool"),
                .interesting(.starved, "the gate filled the pool (a gate as wide as Linux's default pool)"),
                .interesting(.slowed, "probes waited past the responsive limit"),
            ],
            claim: Claim(
                "pool.gate-keeps-latency",
                "behind a gate seen limiting the pool, probe p99 beyond its same-moment control stays within "
                    + "\(Format.number(Responsiveness.responsiveMultiple.value)) x idle "
                    + "(floor: \(Format.number(Responsiveness.instant.value)) ms)",
                premiseMissing: PoolVerdicts.gateNotNarrowerThanThePool),
            time: .from { (p: PoolParameters) in p.probing(watch: p.duration) }, instruments: probing,
            progressMetric: PoolMetric.blocksStarted, body: Gated.run),
        Variant(
            PoolVariant.serialQueue, "the same blocks on their own serial queue; probes on the global queue",
            expect: [
                .expected(.responsive, "the work waits for itself, not for the global pool"),
                .forbidden(.starved, "a serial queue's work starved the global queue"),
                .forbidden(.slowed, "a serial queue's work slowed the global queue"),
            ],
            time: .from { (p: PoolParameters) in p.probing(watch: p.duration) }, instruments: probing,
            progressMetric: PoolMetric.blocksStarted, body: SerialQueue.run),
        Variant(
            PoolVariant.overcommitFlood,
            "each block on its own serial queue (the overcommit pool); not in the default run",
            expect: [
                .expected(.responsive, "a thread per block at once, up to 255; the default pool stays free"),
                .interesting(.starved, "probes waited although the flood used another pool"),
                .interesting(.slowed, "probes waited although the flood used another pool"),
            ],
            includedByDefault: false,
            time: .from { (p: PoolParameters) in p.probing(watch: p.block) }, instruments: probing,
            progressMetric: PoolMetric.blocksStarted, body: OvercommitFlood.run),
        Variant(
            PoolVariant.nonBlocking, "the same delays as asyncAfter timers: no thread held while waiting",
            expect: [
                .expected(
                    .completed, "every delay elapsed and its handler ran together, the pool no wider than the cores"),
                .forbidden(.stalled, "some timers never fired"),
                .forbidden(
                    .heldThreads,
                    "the pool grew past the cores while the timers waited, or they started in waves as held threads do"),
            ],
            claim: Claim(
                "pool.timers-hold-no-threads",
                "the same delays as timers all elapse together (within \(PoolVerdicts.firedTogether)) while the "
                    + "thread count stays flat",
                thresholds: [PoolVerdicts.firedTogether]),
            time: .from { (p: PoolParameters) in p.probing(watch: p.block) }, instruments: probing,
            progressMetric: PoolMetric.blocksStarted, body: NonBlocking.run),
        Variant(
            PoolVariant.cooperativeBlocking, "Swift tasks that block their thread (a semaphore wait)",
            expect: [
                .expected(.completed, "all finished, one wave of `cores` tasks at a time"),
                .interesting(.stalled, "not all finished within their budget"),
            ],
            time: .from { (p: PoolParameters) in TrialTime(expected: p.block + 0.3, progressTotal: p.cooperativeTasks)
            },
            instruments: [.threadTimeline], progressMetric: PoolMetric.blocksStarted,
            body: { Cooperative.run($0, .blockThread) }),
        Variant(
            PoolVariant.cooperativeSleep, "the same Swift tasks with await Task.sleep",
            expect: [
                .expected(.completed, "all finished together"),
                .forbidden(.stalled, "sleeping tasks did not finish"),
            ],
            time: .from { (p: PoolParameters) in
                TrialTime(expected: p.cooperativeHold + 0.3, progressTotal: p.cooperativeTasks)
            },
            instruments: [.threadTimeline], progressMetric: PoolMetric.blocksStarted,
            body: { Cooperative.run($0, .suspend) }),
        Variant(
            PoolVariant.mainThread,
            "a 60 Hz main-run-loop heartbeat through the flood, then the main thread waits for a block it put on the flooded queue",
            expect: [
                .expected(
                    .frozen,
                    "the heartbeat kept time through the flood, then stopped for as long as the main thread waited on the pool"
                ),
                .interesting(.responsive, "the main thread's wait was short: the pool had a thread for its block"),
                .forbidden(
                    .starved,
                    "the heartbeat fell behind before the main thread waited on the pool: the flood reached the main thread"
                ),
            ],
            claim: Claim(
                "pool.main-waiting-on-pool-freezes",
                "a main thread that waits for a block it put on the flooded global queue misses frames for as long as the block waits: "
                    + "at least \(PoolVerdicts.freezeFloor) and \(PoolVerdicts.freezeFactor), "
                    + "both net of a same-moment control, while the main thread is seen waiting that long"),
            time: .from { (p: PoolParameters) in .about(p.duration * 0.8 + 0.5) }, instruments: [.stallWatch],
            body: MainThread.run),
    ],
    findings: [
        Finding(
            "pool.global-queue-is-bounded",
            claim: DispatchPoolSize.current.statedLimit == nil
                ? "blocks outnumber threads: the pool grows slowly (about one thread a second) and, given minutes (--find-cap), stops at a cap"
                : "blocks outnumber threads: the pool stops at the limit the kernel states (kern.wq_max_constrained_threads) while blocks wait",
            needs: [PoolVariant.globalFlood], premiseMissing: PoolVerdicts.floodFitsThePool,
            thresholds: DispatchPoolSize.current.statedLimit == nil
                ? [PoolVerdicts.slowGrowth] : [PoolVerdicts.statedLimitSlack],
            evaluate: PoolVerdicts.globalQueueIsBounded),
        Finding(
            "pool.cooperative-pool-is-core-wide",
            claim: "at most one blocking task per core runs at once; with await Task.sleep they all proceed",
            needs: [PoolVariant.cooperativeBlocking, .cooperativeSleep],
            premiseMissing: PoolVerdicts.cooperativeWidthUnsettled,
            evaluate: PoolVerdicts.cooperativePoolIsCoreWide),
        Finding(
            "pool.flood-spares-main-thread",
            claim:
                "the main thread is not a pool thread: its 60 Hz heartbeat keeps time while the flood holds every pool thread (largest gap within 3 frames, net of a same-moment control)",
            needs: [PoolVariant.mainThread], thresholds: [PoolVerdicts.sparedGap, PoolVerdicts.sparedTicks],
            evaluate: PoolVerdicts.floodSparesMainThread),
    ],
    columns: PoolReport.columns,
    defaultJobs: 3,
    extraSections: PoolReport.sections,
    defaultPlan: { options, variants in
        // The cap search takes minutes and floods on its own.
        PoolParameters(options).findCap
            ? [PoolVariant.globalFlood.rawValue] : variants.filter(\.includedByDefault).map(\.name)
    },
    parameters: PoolParameters.self
)

/// What the harness runs around a probing variant: a same-moment control and the thread count.
private let probing: Instruments = [.stallWatch, .threadTimeline]

/// The outcomes exp-pool defines (the declarations above say what each means).
public extension Outcome {
    static let responsive: Outcome = "responsive", starved: Outcome = "starved", slowed: Outcome = "slowed"
    static let capped: Outcome = "capped", frozen: Outcome = "frozen", heldThreads: Outcome = "held-threads"
}
