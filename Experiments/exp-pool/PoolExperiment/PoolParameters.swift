import Foundation
import LabHarness

/// exp-pool's variants by name: the declaration, the verdicts, the report and the tests all
/// refer to these cases, so a rename fails to compile instead of showing "—".
public enum PoolVariant: String, CaseIterable, VariantName {
    case globalFlood = "global-flood"
    case gated
    case serialQueue = "serial-queue"
    case overcommitFlood = "overcommit-flood"
    case nonBlocking = "non-blocking"
    case cooperativeBlocking = "cooperative-blocking"
    case cooperativeSleep = "cooperative-sleep"
    case mainThread = "main-thread"
}

/// The experiment's knobs, read once from the parsed options so every variant sees the same
/// numbers (a child gets them back through its arguments).
struct PoolParameters: Sendable {
    /// Blocks submitted at once (the seed: 10000).
    var tasks: Int
    /// How long each block holds its thread (the seed: `sleep(30)`).
    var block: Seconds
    /// How long probes run beside the work; the flood's watch ends sooner once every block started.
    var duration: Seconds
    /// Width of the concurrency gate in the `gated` variant.
    var gate: Int
    /// `semaphore` or `operation-queue`.
    var gateWith: String
    /// Flood with blocks that never finish until the thread count stops rising.
    var findCap: Bool
    var cores: Int

    /// Probes run every 100 ms: often enough to feel like a user tapping, sparse enough that
    /// the probes themselves do not load the pool.
    let probeInterval: Seconds = 0.1
    /// Sequential probes on the idle pool before the work starts (after a warm-up probe). The
    /// flood's finding compares p99s, so it takes a hundred (its p99 is then not simply the
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

    /// In `--find-cap` mode the flood needs more blocks than the cap (255 workers), so it uses
    /// at least 400.
    static let findCapTasks = 400
    /// The thread count must stay flat this long (ten monitor ticks) to call it a cap.
    static let capPlateau: Seconds = 10
    /// The longest a cap search may take (the cap took about 4 minutes on the lab machine).
    static let capBudget: Seconds = 600

    init(_ options: ParsedOptions) {
        findCap = options.bool("find-cap")
        tasks = findCap ? max(options.int("tasks"), PoolParameters.findCapTasks) : options.int("tasks")
        block = options.double("block")
        duration = options.double("duration")
        gate = options.int("gate")
        gateWith = options.string("gate-with")
        cores = ProcessInfo.processInfo.activeProcessorCount
    }

    /// How long `main-thread` watches the main thread's heartbeat through the flood before the
    /// main thread waits on the pool itself: a quarter of the probes' window, between half a
    /// second (30 frames) and a second.
    var spareWindow: Seconds { max(0.5, min(1, duration / 4)) }

    /// Swift-concurrency variants: four tasks per core (so blocking ones run in four waves), each
    /// holding a quarter of `--block`, so the blocking variant takes about one block in all.
    var cooperativeTasks: Int { 4 * cores }
    var cooperativeHold: Seconds { block / 4 }

    /// What a flood-style child may take: idle probes, the watch, draining late probes, slack.
    var watchBudget: Seconds { Seconds(floodIdleProbes) * idleSpacing + 3 + duration + 2 * block + 15 }

    /// The variants that watch a pool while work runs: budget for the watch, progress counted
    /// in blocks started. A variant's own estimate (and a flood's longer budget) is set where
    /// it is declared.
    static let watchLimits = TrialLimits(budget: { PoolParameters($0).watchBudget },
                                         estimate: { PoolParameters($0).duration + 0.3 },
                                         progressTotal: { PoolParameters($0).tasks }, progressMetric: PoolMetric.blocksStarted)

    /// The Swift-concurrency variants: progress counted in tasks started.
    static let cooperativeLimits = TrialLimits(progressTotal: { PoolParameters($0).cooperativeTasks },
                                               progressMetric: PoolMetric.blocksStarted)
}

/// The default gate: one slot fewer than the cores (at least one).
///
/// On Linux the default-priority pool has exactly `cores` workers until its monitor adds one,
/// once a second; a gate as wide as the cores fills it, and unrelated work waits for the monitor.
let defaultGateWidth = max(1, ProcessInfo.processInfo.activeProcessorCount - 1)

/// The metric keys exp-pool records and reads back in its verdicts and report, spelled once.
/// They are the JSON contract's names (`metrics` in schema 1); a rename here changes the JSON.
enum PoolMetric {
    static let blockS = "block_s"
    static let blocksLastStartS = "blocks.last_start_s"
    static let blocksStarted = "blocks.started"
    static let capReachedS = "cap.reached_s"
    static let capThreads = "cap.threads"
    static let capWorkers = "cap.workers"
    static let controlP99Ms = "control.p99_ms"
    static let cores = "cores"
    static let freezeGapMaxFrames = "freeze.gap_max_frames"
    static let freezeGapMaxMs = "freeze.gap_max_ms"
    static let mainWaitReturned = "main_wait.returned"
    static let mainWaitS = "main_wait_s"
    static let spareBlocksWaiting = "spare.blocks_waiting"
    static let spareControlDelayS = "spare.control_delay_s"
    static let spareGapMaxMs = "spare.gap_max_ms"
    static let spareGapMaxNetMs = "spare.gap_max_net_ms"
    static let spareTicks = "spare.ticks"
    static let spareWindowS = "spare.window_s"
    static let excessP99Ms = "excess.p99_ms"
    static let finished = "finished"
    static let gate = "gate"
    static let growthThreadsPerS = "growth.threads_per_s"
    static let holdS = "hold_s"
    static let idleNetP50Ms = "idle.net.p50_ms"
    static let idleNetP99Ms = "idle.net.p99_ms"
    static let idleP50Ms = "idle.p50_ms"
    static let idleP99Ms = "idle.p99_ms"
    static let latenessP99Ms = "lateness.p99_ms"
    static let probeCount = "probe.count"
    static let probeP50Ms = "probe.p50_ms"
    static let probeP99Ms = "probe.p99_ms"
    static let probeUnstarted = "probe.unstarted"
    static let runningMax = "running.max"
    static let tasks = "tasks"
    /// The pool limit the kernel states (Darwin's kern.wq_max_constrained_threads); recorded
    /// only where it states one.
    static let poolStatedLimit = "pool.stated_limit"
    static let threadsAdded = "threads.added"
    static let threadsBefore = "threads.before"
    static let threadsFinal = "threads.final"
    static let threadsPeak = "threads.peak"
    static let wallS = "wall_s"
    static let watchS = "watch_s"
}
