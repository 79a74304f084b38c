import LabHarness

/// exp-runloop's variants by name: the declaration, the verdicts, the report and the tests
/// all refer to these cases, so a rename fails to compile instead of showing "—".
public enum RunloopVariant: String, CaseIterable, VariantName {
    case globalQueue = "global-queue"
    case runUntilDate = "run-until-date"
    case operationQueue = "operation-queue"
    case dedicatedThread = "dedicated-thread"
    case sharedThread = "shared-thread"
    /// The caller comparison: the on-time placements with async callers whatever `--caller` says.
    case dedicatedThreadAsync = "dedicated-thread@async"
    case sharedThreadAsync = "shared-thread@async"
    case literalRun = "literal-run"
    case spinNoSource = "spin-no-source"
    case spinWithSource = "spin-with-source"
    case syncSemaphoreMain = "sync-semaphore-main"
    case syncRunloopMain = "sync-runloop-main"
    case timerInit = "timer-init"

    /// The same placement with async callers (itself for the others).
    public var withAsyncCallers: RunloopVariant {
        switch self {
        case .dedicatedThread: .dedicatedThreadAsync
        case .sharedThread: .sharedThreadAsync
        default: self
        }
    }

    /// A request variant's placement and, for the `@async` ones, its fixed callers. The
    /// pitfalls are not request variants; asking for theirs is a programming error.
    var request: (placement: Placement, caller: CallerKind?) {
        switch self {
        case .globalQueue: (.globalQueue, nil)
        case .runUntilDate: (.runUntilDate, nil)
        case .operationQueue: (.operationQueue, nil)
        case .dedicatedThread: (.dedicatedThread, nil)
        case .sharedThread: (.sharedThread, nil)
        case .dedicatedThreadAsync: (.dedicatedThread, .async)
        case .sharedThreadAsync: (.sharedThread, .async)
        case .literalRun: (.literalRun, nil)
        case .spinNoSource, .spinWithSource, .syncSemaphoreMain, .syncRunloopMain, .timerInit:
            preconditionFailure("\(rawValue) is not a request variant")
        }
    }
}

/// exp-runloop's options, read once, and the limits of its trials. Each flag means one thing:
/// `--timeout` is the requests' timeout timer; the pitfalls have flags of their own.
struct RunloopParameters: Sendable {
    /// Requests, each with its own caller (the seed: 300).
    var tasks: Int
    /// Each request's timeout timer (the seed: 1 s).
    var timeout: Seconds
    /// Who waits for a request.
    var caller: CallerKind
    /// How long the main-thread wrappers' request takes.
    var request: Seconds
    /// The pitfalls' timer interval (timer-init) and how long the spinning wrapper waits.
    var interval: Seconds

    init(_ options: ParsedOptions) {
        tasks = options.int("tasks")
        timeout = options.double("timeout")
        caller = CallerKind(rawValue: options.string("caller")) ?? .global
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

    /// Request variants: the harness kills a child a little after the trial's own deadlock
    /// rule or budget would have ended it.
    static func requestLimits(_ placement: Placement, caller fixed: CallerKind?) -> TrialLimits {
        TrialLimits(budget: { RunloopParameters($0).requestBodyBudget + 10 },
                    stallWindow: { RunloopParameters($0).deadlockWindow + 5 },
                    estimate: { o in
                        let p = RunloopParameters(o)
                        return RunloopTiming.estimate(placement, caller: fixed ?? p.caller, requests: p.tasks, timeout: p.timeout)
                    },
                    progressTotal: { RunloopParameters($0).tasks }, progressMetric: "completed")
    }

    /// The pitfalls that time one short interval.
    static let pitfallLimits = TrialLimits(budget: { _ in 10 }, estimate: { RunloopParameters($0).interval + 0.1 })

    /// The main-thread wrappers: the harness ends a wrapper that takes no step for the
    /// deadlock window.
    static let wrapperLimits = TrialLimits(budget: { 4 * RunloopParameters($0).request + 5 },
                                           stallWindow: { RunloopParameters($0).wrapperDeadlockWindow },
                                           estimate: { RunloopParameters($0).request + 0.2 },
                                           progressTotal: { _ in MainThreadWrapper.steps }, progressMetric: "steps")
}
