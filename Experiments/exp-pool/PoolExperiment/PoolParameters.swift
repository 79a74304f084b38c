import Foundation
import LabHarness

/// exp-pool's variants by name (a rename fails to compile instead of showing "—").
public enum PoolVariant: String, CaseIterable, Sendable {
    case globalFlood = "global-flood", gated, serialQueue = "serial-queue", overcommitFlood = "overcommit-flood"
    case nonBlocking = "non-blocking", cooperativeBlocking = "cooperative-blocking", cooperativeSleep =
        "cooperative-sleep"
    case mainThread = "main-thread"
}

/// exp-pool's flags, parsed once (`--tasks`, `--block`, `--duration`, `--gate`, `--gate-with`,
/// `--find-cap`), and the cores.
public struct PoolParameters: ExperimentParameters {
    public var tasks: Int, block: Seconds, duration: Seconds, gate: Int, gateWith: GateKind, findCap: Bool, cores: Int

    /// Probes every 100 ms, like a user tapping, too sparse to load the pool themselves.
    let probeInterval: Seconds = 0.1
    /// Idle probes before the work: the flood's claim compares p99s, so it takes a hundred (one
    /// machine stall then does not move its p99); the others twenty. 10 ms apart, so the worker
    /// goes properly idle (closer ones find it warm: 5 µs instead of 25 µs).
    let floodIdleProbes = 100, idleProbes = 20, idleSpacing: Seconds = 0.01

    /// Blocks in a default run (`--quick`: 8): 20, which outnumber Linux's slowly growing pool for
    /// seconds, or 20 past the limit a kernel states (Darwin), so blocks outnumber threads there too.
    static let defaultTasks = DispatchPoolSize.current.floodSize(base: 20, beyond: 20)
    static let quickTasks = DispatchPoolSize.current.floodSize(base: 8, beyond: 8)
    static let tasksHelp =
        "blocks submitted at once (the article: 10000)"
        + (DispatchPoolSize.current.statement.map { "; \($0), so the default and --quick exceed it" } ?? "")
    /// `--find-cap`: more blocks than the cap (255 workers); a cap is the count flat for ten
    /// monitor ticks; a search takes at most 600 s (about 4 minutes on the lab machine).
    static let findCapTasks = 400, capPlateau: Seconds = 10, capBudget: Seconds = 600

    public init(_ options: ParsedOptions) {
        findCap = options.bool("find-cap")
        tasks = findCap ? max(options.int("tasks"), PoolParameters.findCapTasks) : options.int("tasks")
        (block, duration, gate) = (options.double("block"), options.double("duration"), options.int("gate"))
        (gateWith, cores) = (options.choice("gate-with", as: GateKind.self), CPUBudget.current.poolWidth)
    }

    /// `main-thread`'s watch of the flood alone: a quarter of the probes' window, 0.5 to 1 s.
    var spareWindow: Seconds { max(0.5, min(1, duration / 4)) }

    /// Swift-concurrency variants: four tasks per core, each holding a quarter of `--block`.
    static let cooperativeWaves = 4
    var cooperativeTasks: Int { PoolParameters.cooperativeWaves * cores }
    var cooperativeHold: Seconds { block / Seconds(PoolParameters.cooperativeWaves) }

    /// A probing variant's trial: idle probes, a watch of `watch`, late probes drained.
    func probing(watch: Seconds) -> TrialTime { TrialTime(expected: watch + 1.5, progressTotal: tasks) }

    /// The flood's trial; with `--find-cap`, minutes bounded by the search's own budget.
    var floodTime: TrialTime {
        findCap
            ? TrialTime(expected: 270, budget: PoolParameters.capBudget + 60, progressTotal: tasks)
            : probing(watch: duration + block)
    }
}

/// The default gate: one slot fewer than the pool's width (at least one). Linux's default pool
/// has exactly as many workers as the CPUs in the affinity mask until its monitor adds one a
/// second, so a gate as wide fills it. `CPUBudget.poolWidth`, not the CPUs online: under
/// `taskset -c 0` the pool is one worker wide on a two-CPU machine.
let defaultGateWidth = max(1, CPUBudget.current.poolWidth - 1)

/// The metric keys exp-pool records and reads back: the JSON contract's names (schema 1).
public enum PoolMetric {
    // The work, counted from inside its blocks (`blocks.waited`: started half a block or more
    // after the work began, so they waited for a thread or a gate's slot an earlier block held).
    public static let tasks = "tasks", blockS = "block_s", holdS = "hold_s", cores = "cores", gate = "gate",
        blocksStarted = "blocks.started", blocksLastStartS = "blocks.last_start_s", blocksWaited = "blocks.waited",
        runningMax = "running.max", finished = "finished", wallS = Metrics.wall, watchS = "watch_s"
    // The process's threads; the cap (`--find-cap`); the limit the kernel states (Darwin's
    // kern.wq_max_constrained_threads, recorded only where it states one).
    public static let threadsBefore = "threads.before", threadsPeak = "threads.peak",
        threadsAdded = "threads.added", threadsFinal = "threads.final", growthThreadsPerS = "growth.threads_per_s",
        capReachedS = "cap.reached_s", capThreads = "cap.threads", capWorkers = "cap.workers",
        poolStatedLimit = "pool.stated_limit"
    // non-blocking: how far apart the timers' handlers started, raw and net of the machine.
    public static let startSpreadS = "starts.spread_s", startSpreadNetS = "starts.spread_net_s"
    // Probes (`probe.behind_blocks`: probes seen queued behind a block that started after them)
    // and the idle baseline, raw and net of machine stalls.
    public static let probeP50Ms = "probe.p50_ms", probeP99Ms = "probe.p99_ms", excessP50Ms = "excess.p50_ms",
        excessP99Ms = "excess.p99_ms", controlP99Ms = "control.p99_ms",
        probeCount = "probe.count", probeUnstarted = "probe.unstarted", probeBehind = "probe.behind_blocks",
        idleP50Ms = "idle.p50_ms", idleP99Ms = "idle.p99_ms", idleNetP50Ms = "idle.net.p50_ms",
        idleNetP99Ms = "idle.net.p99_ms"
    // The main thread's heartbeat through the flood (`spare.`) and while it waits on the pool
    // (`main_wait.blocks_waiting`: blocks still waiting for a thread when it queued its own).
    public static let spareTicks = "spare.ticks", spareWindowS = "spare.window_s",
        spareGapMaxMs = "spare.gap_max_ms", spareGapMaxNetMs = "spare.gap_max_net_ms",
        spareBlocksWaiting = "spare.blocks_waiting", spareControlDelayS = "spare.control_delay_s",
        spareMainRunQueueWaitS = "spare.main_runqueue_wait_s",
        mainWaitS = "main_wait_s", mainWaitReturned = "main_wait.returned",
        mainWaitBlocksAhead = "main_wait.blocks_waiting", freezeGapMaxMs = "freeze.gap_max_ms",
        freezeGapMaxFrames = "freeze.gap_max_frames", freezeGapMaxNetMs = "freeze.gap_max_net_ms",
        mainWaitNetS = "main_wait_net_s"
}
