import Foundation
import LabHarness

/// exp-runloop's variants by name (the raw value is the CLI name), so a rename fails to compile
/// instead of showing "—". A request variant is built from its run loop's `Placement`, with
/// `@callers` when its callers are fixed whatever `--caller` says (`dedicated-thread@async`), so
/// its name, placement and callers cannot disagree; a pitfall has no placement.
public struct RunloopVariant: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    /// A request variant's placement (`nil`: a pitfall) and fixed callers (`nil`: `--caller`'s).
    let placement: Placement?, callers: CallerKind?

    init(_ placement: Placement, callers: CallerKind? = nil) {
        (rawValue, self.placement, self.callers) = (
            placement.rawValue + (callers.map { "@\($0.rawValue)" } ?? ""), placement, callers
        )
    }

    private init(pitfall name: String) { (rawValue, placement, callers) = (name, nil, nil) }

    public init?(rawValue: String) {
        guard let known = RunloopVariant.all.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = known
    }

    public var description: String { rawValue }

    public static let globalQueue = RunloopVariant(.globalQueue), runUntilDate = RunloopVariant(.runUntilDate)
    public static let operationQueue = RunloopVariant(.operationQueue), literalRun = RunloopVariant(.literalRun)
    public static let dedicatedThread = RunloopVariant(.dedicatedThread), sharedThread = RunloopVariant(.sharedThread)
    /// The caller comparison: the on-time placements with async callers whatever `--caller` says.
    public static let dedicatedThreadAsync = RunloopVariant(.dedicatedThread, callers: .async),
        sharedThreadAsync = RunloopVariant(.sharedThread, callers: .async)
    /// The article's commented-out callers: operations on an OperationQueue, run loops on the global queue.
    public static let globalQueueOperationQueue = RunloopVariant(.globalQueue, callers: .operationQueue)
    public static let spinNoSource = RunloopVariant(pitfall: "spin-no-source"),
        spinWithSource = RunloopVariant(pitfall: "spin-with-source")
    public static let syncSemaphoreMain = RunloopVariant(pitfall: "sync-semaphore-main"),
        syncRunloopMain = RunloopVariant(pitfall: "sync-runloop-main")
    public static let timerInit = RunloopVariant(pitfall: "timer-init")
    /// The article's double guard with thread callers, beside `run()`: when is the thread released?
    /// A trial of its own (`GuardRelease`), not a request variant.
    public static let runUntilDateThread = RunloopVariant(pitfall: "run-until-date@thread")

    static let all: [RunloopVariant] = [
        .globalQueue, .runUntilDate, .operationQueue, .dedicatedThread, .sharedThread, .dedicatedThreadAsync,
        .sharedThreadAsync, .globalQueueOperationQueue, .literalRun, .spinNoSource, .spinWithSource,
        .syncSemaphoreMain, .syncRunloopMain, .timerInit, .runUntilDateThread,
    ]

    /// The same placement with async callers (itself for the others).
    public var withAsyncCallers: RunloopVariant {
        guard let placement, callers == nil, placement == .dedicatedThread || placement == .sharedThread else {
            return self
        }
        return RunloopVariant(placement, callers: .async)
    }
}

/// exp-runloop's options, read once, and the limits of its trials. Each flag means one thing:
/// `--timeout` is the requests' timeout timer; the pitfalls have flags of their own.
struct RunloopParameters: ExperimentParameters {
    /// Requests, each with its own caller (300 in the article), their timeout (1 s in the article), who waits.
    var tasks: Int, timeout: TimeInterval, caller: CallerKind

    /// Requests in a default and a `--quick` run: the article's 300, and 40 (Linux's pool starts
    /// as wide as the cores and adds a thread a second, so 40 blocked callers outnumber it); where
    /// the kernel states its pool's limit (Darwin), enough to fill that pool twice over and more.
    static let defaultTasks = DispatchPoolSize.current.floodSize(base: 300, poolsFull: 2, beyond: 8)
    static let quickTasks = DispatchPoolSize.current.floodSize(base: 40, poolsFull: 2, beyond: 8)
    /// How long the main-thread wrappers' request takes; the pitfalls' timer interval
    /// (timer-init), also how long the spinning wrapper waits.
    var request: TimeInterval, interval: TimeInterval
    /// The double guard `run(until:)` adds to the timeout (the article: 5 s; `--quick`: 1 s).
    var guardSeconds: TimeInterval

    /// The flags, each declared here beside the field it fills.
    static let flags: [FlagSpec] = [
        .integer(
            "tasks", default: RunloopParameters.defaultTasks, quick: RunloopParameters.quickTasks,
            range: 1...ScaleParameters.maxTasks,
            help:
                "requests (tasks), each with its own caller (the article: 300); at most \(ScaleParameters.blockingCap) with blocking callers or a thread per request"
                + (DispatchPoolSize.current.statement.map {
                    "; \($0), so the default and --quick fill it at least twice over"
                } ?? "")),
        .seconds(
            "timeout", default: 1, quick: 0.25, range: 0.05...10,
            help:
                "each request's timeout timer (the article: 1 s); no completion for \(Int(RunloopParameters.deadlockAfter)) timeouts is a deadlock"
        ),
        .choice(
            "caller", CallerKind.self, default: .global,
            help:
                "who waits: a global-queue block on a semaphore (the article), a thread each, an async task each, or an operation each on an OperationQueue (the article's commented-out callers)"
        ),
        .seconds(
            "request", default: 1, quick: 0.25, range: 0.05...10,
            help:
                "how long the main-thread wrappers' request takes (sync-*-main); no step for \(Int(RunloopParameters.deadlockAfter)) of them is a deadlock"
        ),
        .seconds(
            "interval", default: 0.5, quick: 0.25, range: 0.05...5,
            help: "the pitfalls' timer interval (timer-init) and how long the spinning wrapper waits (spin-*)"),
        .seconds(
            "guard", default: 5, quick: 1, range: 0.5...30,
            help: "the double guard: how long past its timeout run(until:) may run (the article: 5 s)"),
    ]

    /// Reads the flags, once per process, and checks that they go together (`ScaleParameters.check`).
    init(_ options: ParsedOptions) throws {
        (tasks, timeout, caller) = (
            options.int("tasks"), options.double("timeout"), options.choice("caller", as: CallerKind.self)
        )
        (request, interval, guardSeconds) = (
            options.double("request"), options.double("interval"), options.double("guard")
        )
        try ScaleParameters.check(self, options)
    }

    /// The default run: with the article's callers, the on-time placements again with async
    /// callers right after them (the caller comparison); then `ScaleParameters.adjust`.
    func plan(_ standard: [String]) -> [String] {
        var plan = standard
        if caller == .global, let at = plan.firstIndex(of: RunloopVariant.sharedThread.rawValue) {
            plan.insert(
                contentsOf: [RunloopVariant.dedicatedThreadAsync, .sharedThreadAsync].map(\.rawValue), at: at + 1)
        }
        return ScaleParameters.adjust(plan, self)
    }

    /// The deadlock rule: a request trial with no completion for this many timeouts (or a
    /// wrapper with no step for this many request durations) is a deadlock. Three: a request
    /// done late by a whole timeout is still seen to complete, and stalls of a loaded machine
    /// (under a second) do not reach it at the article's timeout.
    static let deadlockAfter = 3.0

    /// The request trials' no-completion window; the main-thread wrappers' no-step window.
    var deadlockWindow: TimeInterval { RunloopParameters.deadlockAfter * timeout }
    var wrapperDeadlockWindow: TimeInterval { RunloopParameters.deadlockAfter * request }

    /// How long a request trial waits for its requests before calling it a day (stalls end it
    /// much sooner): four times the worst estimate, and at least 10 s.
    var requestBodyBudget: TimeInterval {
        max(10, 4 * RunloopTiming.throttledPool(items: tasks, hold: timeout + guardSeconds))
    }

    /// How long a design's trial waits for its requests: four timeouts, more for huge counts.
    var designBudget: TimeInterval { max(10, 4 * timeout + Double(tasks) * 1e-4) }

    /// A request variant's time: its estimate, and a budget past the trial's own. No stall
    /// window: the trial detects its own stall (`RequestTrial`), because the mechanism its
    /// claims need is in its step table and the stacks it takes at that moment; a detector in
    /// the harness would only race it and leave a record without that evidence.
    func requestTime(_ placement: Placement, caller: CallerKind) -> TrialTime {
        TrialTime(
            expected: RunloopTiming.estimate(
                placement, caller: caller, requests: tasks, timeout: timeout, guardSeconds: guardSeconds),
            budget: requestBodyBudget + 10, progressTotal: tasks)
    }

    /// `run-until-date@thread`: the guard's whole length and a little more (the watch past
    /// the guard date ends it early when the thread is released).
    var guardTime: TrialTime { TrialTime(expected: timeout + guardSeconds + 0.6, progressTotal: 3) }

    /// The main-thread wrappers: the harness ends a wrapper that takes no step for the deadlock
    /// window (a wrapper blocks the thread that would watch) and takes every thread's stack; the
    /// one that `hangs` is expected to end so, its budget just past that.
    func wrapperTime(hangs: Bool) -> TrialTime {
        TrialTime(
            expected: hangs ? 4 * request + 0.2 : request + 0.1, budget: hangs ? 4 * request + 5 : nil,
            stallWindow: wrapperDeadlockWindow, progressTotal: MainThreadWrapper.steps)
    }
}

/// The metric keys exp-runloop records and reads back in its verdicts, report and tests, spelled
/// once: the JSON contract's names (`metrics` in schema 1).
public enum RunloopMetric {
    /// Every trial of requests: issued, done, timers fired, callers that saw their timeout.
    public static let total = "total", completed = "completed", fired = "fired", timely = "timely"
    public static let wallS = Metrics.wall, wallControlDelayS = "wall.control_delay_s"
    /// Fire time − deadline; `excess`: less what the same-moment control was held up meanwhile.
    public static let latenessP50Ms = "lateness.p50_ms", latenessP99Ms = "lateness.p99_ms",
        latenessMaxMs = "lateness.max_ms"
    public static let latenessExcessP50Ms = "lateness.excess.p50_ms", latenessExcessP99Ms = "lateness.excess.p99_ms"
    public static let latenessExcessMaxMs = "lateness.excess.max_ms", latenessCensored = "lateness.censored"
    /// The request placements (`RequestMetrics`).
    public static let waitP50S = "wait.p50_s", waitP99S = "wait.p99_s", waitMaxS = "wait.max_s",
        waitCensored = "wait.censored"
    public static let armDelayP50S = "arm_delay.p50_s", armDelayMaxS = "arm_delay.max_s"
    /// The last timer armed, from the first caller's start; what the control lost after it.
    public static let armedLastS = "armed.last_s", afterArmedControlDelayS = "wall.after_armed_control_delay_s"
    public static let callerDelayMaxS = "caller_delay.max_s", callerDelayCensored = "caller_delay.censored"
    /// Callers started (the timeout designs: started before their deadline, which counts from issue).
    public static let callersStarted = "callers.started", inFlightPeak = "in_flight.peak",
        stallDetectedS = "stall.detected_s"
    public static let threadsPeak = "threads.peak", threadsBaseline = "threads.baseline"
    public static let runloopThreadsPeak = "runloop_threads.peak", runloopsUnreturned = "runloops.unreturned"
    /// How many threads armed the requests' timers (a thread's identity, counted once).
    public static let runloopThreadsUsed = "runloop_threads.used"
    /// The timeout designs (`TimeoutTrial`): completed before their timeout fired, woken before
    /// their deadline; first issued to last woken over the timeout; first issued to last caller
    /// started; last deadline to last woken; threads the design added, 1/0 for its thread's real-time
    /// priority granted/refused; timer settings (in a request trial: the requests whose run loop
    /// ever armed its timer); the process's peak memory.
    public static let completedFirst = "completed_first", early = "early", wallPerTimeout = "wall_per_timeout"
    public static let issueS = "issue_s", drainS = "drain_s", threadsAdded = "threads.added",
        threadsRealtime = "threads.realtime"
    public static let timersArmed = "timers.armed", memoryPeakMB = "memory.peak_mb", cpuS = "cpu_s"
    /// The wake-up floor beside a timeout trial (`WakeFloor`): how late a thread that only sleeps
    /// woke, p50 and p99, over the window in which the requests fell due, and how many wake-ups
    /// that was; the requests' p99 less the floor's (0 when below it).
    public static let floorP50Ms = "floor.p50_ms", floorP99Ms = "floor.p99_ms", floorSamples = "floor.samples"
    public static let latenessNetP99Ms = "lateness.net_p99_ms"
    /// The pitfalls: run-loop passes, CPU and runnable time per wall second, wrapper steps.
    public static let passes = "passes", passesPerS = "passes_per_s", steps = "steps"
    public static let cpuPerWall = "cpu_per_wall", runnablePerWall = "runnable_per_wall"
    /// The double guard (`GuardRelease`).
    public static let guardPromisedS = "guard.promised_s", runHeldS = "run.held_s", runReleased = "run.released"
    public static let untilDateExcessS = "until_date.excess_s", untilDateReleased = "until_date.released"
    public static let untilDateReleasedAfterS = "until_date.released_after_s"
    /// Each Timer constructor's first fire (`TimerInit`).
    public static let intervalMs = "interval_ms", firstFireFireDateInitMs = "first_fire.fire_date_init_ms"
    public static let firstFireScheduledMs = "first_fire.scheduled_ms",
        firstFireTimeIntervalInitMs = "first_fire.time_interval_init_ms"
    public static let firstFireTimeIntervalInitExcessMs = "first_fire.time_interval_init.excess_ms"
}
