import Foundation
import LabHarness

/// exp-pool's variants by name: the declaration, the verdicts, the report and the tests all
/// refer to these cases, so a rename fails to compile instead of showing "—".
public enum PoolVariant: String, CaseIterable, VariantName {
    case globalFlood = "global-flood", gated, serialQueue = "serial-queue", overcommitFlood = "overcommit-flood"
    case nonBlocking = "non-blocking", cooperativeBlocking = "cooperative-blocking", cooperativeSleep = "cooperative-sleep"
    case mainThread = "main-thread"
}

/// The experiment's knobs, parsed once from the flags by the harness (a child gets them back
/// through its arguments), so every variant, verdict and trial time sees the same numbers.
public struct PoolParameters: ExperimentParameters {
    /// `--tasks` (the seed: 10000 blocks), `--block` (each block's hold; the seed: `sleep(30)`),
    /// `--duration` (the probes' watch; the flood's ends once every block started), `--gate`,
    /// `--gate-with`, `--find-cap`; and the cores.
    public var tasks: Int, block: Seconds, duration: Seconds, gate: Int, gateWith: GateKind, findCap: Bool, cores: Int

    /// Probes run every 100 ms: often enough to feel like a user tapping, sparse enough that
    /// the probes themselves do not load the pool.
    let probeInterval: Seconds = 0.1
    /// Sequential probes on the idle pool before the work starts (after a warm-up probe). The
    /// flood's claim compares p99s, so it takes a hundred (its p99 is then not simply the
    /// maximum, and one stall of the machine does not move it); the others take twenty.
    let floodIdleProbes = 100
    let idleProbes = 20
    /// Spacing of the idle probes: 10 ms, enough for the worker to go properly idle (closer
    /// probes find it still warm and start in about 5 µs instead of 25 µs).
    let idleSpacing: Seconds = 0.01

    /// Blocks in a default run: 20 here (Linux's pool adds about one thread a second, so 20 blocks
    /// of 1 s outnumber it for seconds); where the kernel states its pool's limit (Darwin: a
    /// thread for every blocked block up to max(64, 5 × CPUs)), 20 more than that limit, so the
    /// premise "blocks outnumber threads" holds there too (`DispatchPoolSize`).
    static let defaultTasks = DispatchPoolSize.current.floodSize(base: 20, beyond: 20)
    /// Blocks in a `--quick` run: 8 here, 8 past a stated limit.
    static let quickTasks = DispatchPoolSize.current.floodSize(base: 8, beyond: 8)
    /// `--tasks`'s help, which says how the default was sized on this machine.
    static let tasksHelp = "blocks submitted at once (the article: 10000)"
        + (DispatchPoolSize.current.statement.map { "; \($0), so the default and --quick exceed it" } ?? "")
    /// `--find-cap` needs more blocks than the cap (255 workers): at least 400.
    static let findCapTasks = 400
    /// A cap: the thread count flat for ten monitor ticks; a search takes at most 600 s (the cap
    /// took about 4 minutes on the lab machine).
    static let capPlateau: Seconds = 10, capBudget: Seconds = 600

    public init(_ options: ParsedOptions) {
        findCap = options.bool("find-cap")
        tasks = findCap ? max(options.int("tasks"), PoolParameters.findCapTasks) : options.int("tasks")
        (block, duration, gate) = (options.double("block"), options.double("duration"), options.int("gate"))
        (gateWith, cores) = (options.choice("gate-with", as: GateKind.self), ProcessInfo.processInfo.activeProcessorCount)
    }

    /// How long `main-thread` watches the main thread's heartbeat through the flood before the
    /// main thread waits on the pool itself: a quarter of the probes' window, between half a
    /// second (30 frames) and a second.
    var spareWindow: Seconds { max(0.5, min(1, duration / 4)) }

    /// Swift-concurrency variants: four tasks per core (so blocking ones run in four waves), each
    /// holding a quarter of `--block`, so the blocking variant takes about one block in all.
    static let cooperativeWaves = 4
    var cooperativeTasks: Int { PoolParameters.cooperativeWaves * cores }
    var cooperativeHold: Seconds { block / Seconds(PoolParameters.cooperativeWaves) }

    /// A probing variant's trial: idle probes, a watch of `watch`, late probes drained;
    /// progress counts blocks started.
    func probing(watch: Seconds) -> TrialTime { TrialTime(expected: watch + 1.5, progressTotal: tasks) }

    /// The flood's trial: the probing watch, or, with `--find-cap`, minutes whose budget is the
    /// search's own bound (a search still rising then ends `timed-out`).
    var floodTime: TrialTime {
        findCap ? TrialTime(expected: 270, budget: PoolParameters.capBudget + 60, progressTotal: tasks) : probing(watch: duration + block)
    }
}

/// The default gate: one slot fewer than the cores (at least one). Linux's default pool has
/// exactly `cores` workers until its monitor adds one a second, so a gate as wide fills it.
let defaultGateWidth = max(1, ProcessInfo.processInfo.activeProcessorCount - 1)

/// The metric keys exp-pool records and reads back in its verdicts, report and tests, spelled
/// once. They are the JSON contract's names (`metrics` in schema 1); a rename here changes the JSON.
public enum PoolMetric {
    // The work, counted from inside its blocks (`blocks.waited`: started half a block or more
    // after the work began, so they waited for a thread or a gate's slot an earlier block held).
    public static let tasks: MetricKey = "tasks", blockS: MetricKey = "block_s", holdS: MetricKey = "hold_s", cores: MetricKey = "cores",
                      gate: MetricKey = "gate", blocksStarted: MetricKey = "blocks.started", blocksLastStartS: MetricKey = "blocks.last_start_s",
                      blocksWaited: MetricKey = "blocks.waited", runningMax: MetricKey = "running.max", finished: MetricKey = "finished",
                      wallS: MetricKey = "wall_s", watchS: MetricKey = "watch_s"
    // The process's threads; the cap (`--find-cap`); the limit the kernel states (Darwin's
    // kern.wq_max_constrained_threads, recorded only where it states one).
    public static let threadsBefore: MetricKey = "threads.before", threadsPeak: MetricKey = "threads.peak",
                      threadsAdded: MetricKey = "threads.added", threadsFinal: MetricKey = "threads.final",
                      growthThreadsPerS: MetricKey = "growth.threads_per_s", capReachedS: MetricKey = "cap.reached_s",
                      capThreads: MetricKey = "cap.threads", capWorkers: MetricKey = "cap.workers", poolStatedLimit: MetricKey = "pool.stated_limit"
    // Probes (`probe.behind_blocks`: probes seen queued behind a block that started after them)
    // and the idle baseline, raw and net of machine stalls.
    public static let probeP50Ms: MetricKey = "probe.p50_ms", probeP99Ms: MetricKey = "probe.p99_ms", excessP99Ms: MetricKey = "excess.p99_ms",
                      probeCount: MetricKey = "probe.count", probeUnstarted: MetricKey = "probe.unstarted",
                      probeBehind: MetricKey = "probe.behind_blocks", idleP50Ms: MetricKey = "idle.p50_ms", idleP99Ms: MetricKey = "idle.p99_ms",
                      idleNetP50Ms: MetricKey = "idle.net.p50_ms", idleNetP99Ms: MetricKey = "idle.net.p99_ms"
    // The main thread's heartbeat through the flood (`spare.`) and while it waits on the pool
    // (`main_wait.blocks_waiting`: blocks still waiting for a thread when it queued its own).
    public static let spareTicks: MetricKey = "spare.ticks", spareWindowS: MetricKey = "spare.window_s", spareGapMaxMs: MetricKey = "spare.gap_max_ms",
                      spareGapMaxNetMs: MetricKey = "spare.gap_max_net_ms", spareBlocksWaiting: MetricKey = "spare.blocks_waiting",
                      spareControlDelayS: MetricKey = "spare.control_delay_s", mainWaitS: MetricKey = "main_wait_s",
                      mainWaitReturned: MetricKey = "main_wait.returned", mainWaitBlocksAhead: MetricKey = "main_wait.blocks_waiting",
                      freezeGapMaxMs: MetricKey = "freeze.gap_max_ms", freezeGapMaxFrames: MetricKey = "freeze.gap_max_frames"
}

