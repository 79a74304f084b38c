import LabHarness

/// exp-runloop's variants by name: the declaration, the verdicts, the report and the tests
/// all refer to these, so a rename fails to compile instead of showing "—".
///
/// One name per design: a request variant is built from its run loop's `Placement` (the
/// design), with `@callers` when its callers are fixed whatever `--caller` says
/// (`dedicated-thread@async`), so its name, its placement and its callers cannot disagree, and
/// a pitfall has no placement to ask for. The CLI names are the raw values.
public struct RunloopVariant: VariantName, CustomStringConvertible {
    public let rawValue: String
    /// The placement a request variant times out its requests with; `nil` for a pitfall.
    let placement: Placement?
    /// The callers a request variant always has; `nil`: the ones `--caller` says.
    let callers: CallerKind?

    /// The request variant of `placement`, with `callers` fixed when given.
    init(_ placement: Placement, callers: CallerKind? = nil) {
        rawValue = placement.rawValue + (callers.map { "@\($0.rawValue)" } ?? "")
        self.placement = placement
        self.callers = callers
    }

    private init(pitfall name: String) {
        rawValue = name
        placement = nil
        callers = nil
    }

    /// A declared variant by its CLI name.
    public init?(rawValue: String) {
        guard let known = RunloopVariant.all.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = known
    }

    public var description: String { rawValue }

    public static let globalQueue = RunloopVariant(.globalQueue)
    public static let runUntilDate = RunloopVariant(.runUntilDate)
    public static let operationQueue = RunloopVariant(.operationQueue)
    public static let dedicatedThread = RunloopVariant(.dedicatedThread)
    public static let sharedThread = RunloopVariant(.sharedThread)
    /// The caller comparison: the on-time placements with async callers whatever `--caller` says.
    public static let dedicatedThreadAsync = RunloopVariant(.dedicatedThread, callers: .async)
    public static let sharedThreadAsync = RunloopVariant(.sharedThread, callers: .async)
    /// The seed's commented-out callers: operations on an OperationQueue, run loops on the global queue.
    public static let globalQueueOperationQueue = RunloopVariant(.globalQueue, callers: .operationQueue)
    public static let literalRun = RunloopVariant(.literalRun)
    public static let spinNoSource = RunloopVariant(pitfall: "spin-no-source")
    public static let spinWithSource = RunloopVariant(pitfall: "spin-with-source")
    public static let syncSemaphoreMain = RunloopVariant(pitfall: "sync-semaphore-main")
    public static let syncRunloopMain = RunloopVariant(pitfall: "sync-runloop-main")
    public static let timerInit = RunloopVariant(pitfall: "timer-init")
    /// The seed's double guard with thread callers, beside `run()`: when is the thread released?
    /// A trial of its own (`GuardRelease`), not a request variant.
    public static let runUntilDateThread = RunloopVariant(pitfall: "run-until-date@thread")

    static let all: [RunloopVariant] = [
        .globalQueue, .runUntilDate, .operationQueue, .dedicatedThread, .sharedThread, .dedicatedThreadAsync,
        .sharedThreadAsync, .globalQueueOperationQueue, .literalRun, .spinNoSource, .spinWithSource,
        .syncSemaphoreMain, .syncRunloopMain, .timerInit, .runUntilDateThread,
    ]

    /// The same placement with async callers (itself for the others).
    public var withAsyncCallers: RunloopVariant {
        guard let placement, callers == nil, placement == .dedicatedThread || placement == .sharedThread else { return self }
        return RunloopVariant(placement, callers: .async)
    }
}

/// exp-runloop's options, read once, and the limits of its trials. Each flag means one thing:
/// `--timeout` is the requests' timeout timer; the pitfalls have flags of their own.
struct RunloopParameters: ExperimentParameters {
    /// Requests, each with its own caller (the seed: 300).
    var tasks: Int
    /// Each request's timeout timer (the seed: 1 s).
    var timeout: Seconds
    /// Who waits for a request.
    var caller: CallerKind

    /// Requests in a default run: the article's 300, or, where the kernel states its pool's
    /// limit (Darwin: a thread for every blocked caller up to max(64, 5 × CPUs)), enough to fill
    /// that pool twice over and more, so blocked callers still wait for threads there.
    static let defaultTasks = DispatchPoolSize.current.floodSize(base: 300, poolsFull: 2, beyond: 8)
    /// Requests in a `--quick` run: 40 here (Linux's pool starts as wide as the cores and adds
    /// a thread a second, so 40 blocked callers outnumber it), sized the same way past a stated
    /// limit.
    static let quickTasks = DispatchPoolSize.current.floodSize(base: 40, poolsFull: 2, beyond: 8)
    /// How long the main-thread wrappers' request takes.
    var request: Seconds
    /// The pitfalls' timer interval (timer-init) and how long the spinning wrapper waits.
    var interval: Seconds

    /// Reads the flags and checks that they go together (`ScaleParameters.check`).
    init(_ options: ParsedOptions) throws {
        self.init(reading: options)
        try ScaleParameters.check(self, options)
    }

    /// Reads the flags, unchecked.
    init(reading options: ParsedOptions) {
        tasks = options.int("tasks")
        timeout = options.double("timeout")
        caller = options.choice("caller", as: CallerKind.self)
        request = options.double("request")
        interval = options.double("interval")
    }

    /// The deadlock rule: a request trial with no completion for this many timeouts (or a
    /// wrapper with no step for this many request durations) is a deadlock. Three: a request
    /// done late by a whole timeout is still seen to complete, and stalls of a loaded machine
    /// (under a second) do not reach it at the seed's timeout.
    static let deadlockAfter = 3.0

    /// The request trials' no-completion window.
    var deadlockWindow: Seconds { RunloopParameters.deadlockAfter * timeout }
    /// The main-thread wrappers' no-step window.
    var wrapperDeadlockWindow: Seconds { RunloopParameters.deadlockAfter * request }

    /// How long a request trial waits for its requests before calling it a day (stalls end it
    /// much sooner): four times the worst estimate, and at least 10 s.
    var requestBodyBudget: Seconds {
        max(10, 4 * RunloopTiming.throttledPool(items: tasks, hold: timeout + PlacementRuntime.guardSeconds))
    }

    /// A request variant's time: its estimate, and a budget past the trial's own (the harness
    /// kills a child that overruns it). No stall window: the trial detects its own stall
    /// (`RequestTrial`), because the mechanism its claims need (which callers had started,
    /// which were waiting in the semaphore, which run loops were queued) is in its request log
    /// and in the stacks it takes at that moment; a second detector in the harness would only
    /// race it and leave a record without that evidence.
    func requestTime(_ placement: Placement, caller: CallerKind) -> TrialTime {
        TrialTime(expected: RunloopTiming.estimate(placement, caller: caller, requests: tasks, timeout: timeout),
                  budget: requestBodyBudget + 10, progressTotal: tasks)
    }

    /// `run-until-date@thread`: the guard's whole length and a little more (the watch past
    /// the guard date ends it early when the thread is released).
    var guardTime: TrialTime {
        TrialTime(expected: timeout + PlacementRuntime.guardSeconds + 0.6, progressTotal: 3)
    }

    /// The main-thread wrappers: the harness ends a wrapper that takes no step for the deadlock
    /// window (the only stall detector here: a wrapper blocks the thread that would watch),
    /// and takes every thread's stack. The one that `hangs` is expected to be ended so, and its
    /// budget is set just past that.
    func wrapperTime(hangs: Bool) -> TrialTime {
        TrialTime(expected: hangs ? 4 * request + 0.2 : request + 0.1, budget: hangs ? 4 * request + 5 : nil,
                  stallWindow: wrapperDeadlockWindow, progressTotal: MainThreadWrapper.steps)
    }
}

/// The metric keys exp-runloop records and reads back in its verdicts, report and tests, spelled
/// once: the JSON contract's names (`metrics` in schema 1).
public enum RunloopMetric {
    /// Every trial of requests: issued, done, timers fired, callers that saw their timeout.
    public static let total: MetricKey = "total", completed: MetricKey = "completed", fired: MetricKey = "fired", timely: MetricKey = "timely"
    public static let wallS: MetricKey = "wall_s", wallControlDelayS: MetricKey = "wall.control_delay_s"
    /// Fire time − deadline; `excess`: less what the same-moment control was held up meanwhile.
    public static let latenessP50Ms: MetricKey = "lateness.p50_ms", latenessP99Ms: MetricKey = "lateness.p99_ms", latenessMaxMs: MetricKey = "lateness.max_ms"
    public static let latenessExcessP50Ms: MetricKey = "lateness.excess.p50_ms", latenessExcessP99Ms: MetricKey = "lateness.excess.p99_ms"
    public static let latenessExcessMaxMs: MetricKey = "lateness.excess.max_ms", latenessCensored: MetricKey = "lateness.censored"
    /// The request placements (`RequestMetrics`).
    public static let waitP50S: MetricKey = "wait.p50_s", waitP99S: MetricKey = "wait.p99_s", waitMaxS: MetricKey = "wait.max_s", waitCensored: MetricKey = "wait.censored"
    public static let armDelayP50S: MetricKey = "arm_delay.p50_s", armDelayMaxS: MetricKey = "arm_delay.max_s"
    public static let callerDelayMaxS: MetricKey = "caller_delay.max_s", callerDelayCensored: MetricKey = "caller_delay.censored"
    public static let callersStarted: MetricKey = "callers.started", inFlightPeak: MetricKey = "in_flight.peak", stallDetectedS: MetricKey = "stall.detected_s"
    public static let threadsPeak: MetricKey = "threads.peak", threadsBaseline: MetricKey = "threads.baseline"
    public static let runloopThreadsPeak: MetricKey = "runloop_threads.peak", runloopsUnreturned: MetricKey = "runloops.unreturned"
    /// The timeout designs (`TimeoutTrial`): completed before their timeout fired, woken before
    /// their deadline; first issued to last woken over the timeout; first to last issued; last
    /// deadline to last woken; threads the design added, 1/0 for its thread's real-time
    /// priority granted/refused; timer settings; the process's peak memory.
    public static let completedFirst: MetricKey = "completed_first", early: MetricKey = "early", wallPerTimeout: MetricKey = "wall_per_timeout"
    public static let issueS: MetricKey = "issue_s", drainS: MetricKey = "drain_s", threadsAdded: MetricKey = "threads.added", threadsRealtime: MetricKey = "threads.realtime"
    public static let timersArmed: MetricKey = "timers.armed", memoryPeakMB: MetricKey = "memory.peak_mb", cpuS: MetricKey = "cpu_s"
    /// The pitfalls: run-loop passes, CPU and runnable time per wall second, wrapper steps.
    public static let passes: MetricKey = "passes", passesPerS: MetricKey = "passes_per_s", steps: MetricKey = "steps"
    public static let cpuPerWall: MetricKey = "cpu_per_wall", runnablePerWall: MetricKey = "runnable_per_wall"
    /// The double guard (`GuardRelease`).
    public static let guardPromisedS: MetricKey = "guard.promised_s", runHeldS: MetricKey = "run.held_s", runReleased: MetricKey = "run.released"
    public static let untilDateExcessS: MetricKey = "until_date.excess_s", untilDateReleased: MetricKey = "until_date.released"
    public static let untilDateReleasedAfterS: MetricKey = "until_date.released_after_s"
    /// Each Timer constructor's first fire (`TimerInit`).
    public static let intervalMs: MetricKey = "interval_ms", firstFireFireDateInitMs: MetricKey = "first_fire.fire_date_init_ms"
    public static let firstFireScheduledMs: MetricKey = "first_fire.scheduled_ms", firstFireTimeIntervalInitMs: MetricKey = "first_fire.time_interval_init_ms"
    public static let firstFireTimeIntervalInitExcessMs: MetricKey = "first_fire.time_interval_init.excess_ms"
}
