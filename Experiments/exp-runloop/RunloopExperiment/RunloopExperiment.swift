import LabHarness

/// exp-runloop: where should a request's run loop live, and who may block waiting for it?
///
/// The seed (ChenYilong, "避免使用GCD-Global队列创建Runloop常驻线程") times out 300 requests, each
/// with a 1 s timer on a run loop, while each caller blocks on a semaphore. This declaration lists
/// the placements of that run loop and the run-loop pitfalls around it (xiangwangfeng's
/// synchronous wrappers), with the outcomes each is expected to show; the findings check the
/// claims against what was measured. Mechanics live in `Requests/` and `Pitfalls/`.
public let runloopExperiment = ExperimentDefinition(
    name: "runloop",
    executable: "exp-runloop",
    question: "Where may a request's run loop live, and who may block waiting for it?",
    about: """
    With no flags: the seed's parameters (300 requests, 1 s timeout, every caller a block on the \
    global queue waiting on a semaphore) for each run-loop placement, the same placements again with \
    async callers for comparison, and the run-loop pitfalls. Each variant runs in its own process, \
    several at once: blocked threads cost no CPU, and every process has its own dispatch pool. \
    A variant with no completion for 3 x timeout is a deadlock. The default run takes about 23 s, \
    because that is how long the global queue's pool needs to get 300 blocked callers through \
    (it adds about one thread per second); --quick shows the same findings in a few seconds.
    """,
    flags: [
        .integer("tasks", default: 300, quick: 40, range: 1...1000,
                 help: "requests (tasks), each with its own caller (the seed: 300)"),
        .seconds("timeout", default: 1, quick: 0.25, range: 0.05...10,
                 help: "each request's timeout timer (the seed: 1 s)"),
        .choice("caller", CallerKind.allCases.map(\.rawValue), default: CallerKind.global.rawValue,
                help: "who waits: a global-queue block on a semaphore (the seed), a thread each, or an async task each"),
    ],
    variants: [
        requestVariant(.globalQueue, summary: "the run loop runs in a block on the global queue (the seed's second way)", expect: [
            OutcomeExpectation(.deadlock, .expected, "the run-loop blocks wait for pool threads that the waiting callers hold: no caller wakes"),
            OutcomeExpectation(.completed, .interesting, "every caller woke, late: the pool had room (few requests, or callers that do not block)"),
            OutcomeExpectation(.timedOut, .interesting, "still trickling when the budget ran out"),
        ]),
        requestVariant(.runUntilDate, summary: "global-queue with the seed's double guard, run(until: timeout + 5 s)", expect: [
            OutcomeExpectation(.deadlock, .expected, "the guard never runs: it is inside the block that never starts"),
            OutcomeExpectation(.completed, .interesting, "every caller woke, late: the pool had room (callers that do not block it)"),
            OutcomeExpectation(.leaked, .interesting, "callers woke, but each run loop held its pool thread until the guard date: run(until:) ignores CFRunLoopStop"),
            OutcomeExpectation(.timedOut, .interesting, "still trickling when the budget ran out"),
        ]),
        requestVariant(.operationQueue, summary: "the run loop runs in an OperationQueue operation (maxConcurrentOperationCount 300)", expect: [
            OutcomeExpectation(.deadlock, .expected, "operation queues run on the same global pool: no better than global-queue"),
            OutcomeExpectation(.completed, .interesting, "every caller woke, late: the pool had room"),
            OutcomeExpectation(.timedOut, .interesting, "still trickling when the budget ran out"),
        ]),
        requestVariant(.dedicatedThread, summary: "a new Thread per request runs its run loop (the seed's first way)", expect: [
            OutcomeExpectation(.completed, .expected, "every timer fired on time; the total time depends on the callers"),
            OutcomeExpectation(.deadlock, .forbidden, "a thread of its own cannot wait behind the pool"),
        ]),
        requestVariant(.sharedThread, summary: "one long-lived run-loop thread, kept alive by a port, serves every timer (AFNetworking 2.x)", expect: [
            OutcomeExpectation(.completed, .expected, "every timer fired on time, on one thread"),
            OutcomeExpectation(.deadlock, .forbidden, "the shared thread does not depend on the pool"),
        ]),
        requestVariant(.dedicatedThread, caller: .async, summary: "dedicated-thread with async callers (added to the default run when --caller is global)", expect: [
            OutcomeExpectation(.completed, .expected, "all requests done in about one timeout"),
            OutcomeExpectation(.deadlock, .forbidden, "nothing here waits for the pool"),
        ], includedByDefault: false),
        requestVariant(.sharedThread, caller: .async, summary: "shared-thread with async callers: the performance bar (added like the one above)", expect: [
            OutcomeExpectation(.completed, .expected, "all requests done in about one timeout, on one run-loop thread"),
            OutcomeExpectation(.deadlock, .forbidden, "nothing here waits for the pool"),
        ], includedByDefault: false),
        requestVariant(.literalRun, summary: "dedicated-thread as the seed wrote it: a port, RunLoop.run() and CFRunLoopStop", expect: [
            OutcomeExpectation(.leaked, .expected, "run() ignores CFRunLoopStop: every request leaves its thread running its run loop"),
            OutcomeExpectation(.completed, .interesting, "run() returned after the stop: this Foundation differs from Linux and Darwin"),
            OutcomeExpectation(.deadlock, .forbidden, "callers wake from the timer, whatever the run loop does next"),
        ], includedByDefault: false),
        Variant("spin-no-source", summary: "a wrapper spins run(mode:before:) on a thread whose run loop has no source",
                expect: [
                    OutcomeExpectation(SpinWrapper.busyLoop, .expected, "run(mode:before:) returned at once on every pass: a busy loop"),
                    OutcomeExpectation(.completed, .forbidden, "the loop slept without a source: not how Foundation behaves"),
                ],
                budget: { _ in 10 }, estimate: { SpinWrapper.spinSeconds($0) + 0.1 }) { context in
            SpinWrapper.run(context, withSource: false)
        },
        Variant("spin-with-source", summary: "the same wrapper after adding a SocketPort to the run loop",
                expect: [
                    OutcomeExpectation(.completed, .expected, "each pass slept until the request finished"),
                    OutcomeExpectation(SpinWrapper.busyLoop, .forbidden, "the port did not keep the run loop asleep"),
                ],
                budget: { _ in 10 }, estimate: { SpinWrapper.spinSeconds($0) + 0.1 }) { context in
            SpinWrapper.run(context, withSource: true)
        },
        Variant("sync-semaphore-main", summary: "the main thread waits on a semaphore for a completion delivered on the main queue",
                expect: [
                    OutcomeExpectation(.deadlock, .expected, "the completion is queued for the main thread, which is blocked waiting for it"),
                    OutcomeExpectation(.completed, .forbidden, "the main queue ran while the main thread was blocked"),
                ],
                budget: { 4 * $0.double("timeout") + 5 }, stallWindow: { 3 * $0.double("timeout") },
                estimate: { 4 * $0.double("timeout") + 0.2 }, progressTotal: { _ in MainThreadWrapper.steps },
                progressMetric: "steps") { context in
            MainThreadWrapper.semaphore(context)
        },
        Variant("sync-runloop-main", summary: "the main thread runs its run loop until the completion has run",
                expect: [
                    OutcomeExpectation(.completed, .expected, "the run loop drained the main queue, the completion ran, the wrapper returned"),
                    OutcomeExpectation(.deadlock, .forbidden, "the main run loop did not run the main queue"),
                ],
                budget: { 4 * $0.double("timeout") + 5 }, stallWindow: { 3 * $0.double("timeout") },
                estimate: { $0.double("timeout") + 0.1 }, progressTotal: { _ in MainThreadWrapper.steps },
                progressMetric: "steps") { context in
            MainThreadWrapper.runLoop(context)
        },
        Variant("timer-init", summary: "first-fire delay of each Timer constructor, same interval",
                expect: [
                    OutcomeExpectation(.completed, .expected, "every constructor waited its interval (Darwin)"),
                    OutcomeExpectation(TimerInit.firesEarly, .interesting, "Timer(timeInterval:) fired at once (swift-corelibs-foundation #4712, Linux)"),
                ],
                budget: { _ in 10 }, estimate: { TimerInit.interval($0) + 0.1 }) { context in
            TimerInit.run(context)
        },
    ],
    findings: runloopFindings,
    columns: runloopColumns,
    defaultJobs: 4,
    extraSections: runloopSections,
    defaultPlan: { options, variants in
        var plan = variants.filter(\.includedByDefault).map(\.name)
        // The caller comparison: with the seed's callers, run the on-time placements again
        // with async callers, right after them.
        if callerKind(options) == .global, let at = plan.firstIndex(of: Placement.sharedThread.rawValue) {
            plan.insert(contentsOf: ["dedicated-thread@async", "shared-thread@async"], at: at + 1)
        }
        return plan
    }
)

/// The `--caller` option.
func callerKind(_ options: ParsedOptions) -> CallerKind {
    CallerKind(rawValue: options.string("caller")) ?? .global
}

/// A variant that times out `--tasks` requests with their run loops placed one way. With
/// `caller`, its callers are always of that kind (`NAME@caller`); otherwise `--caller` decides.
func requestVariant(_ placement: Placement, caller fixed: CallerKind? = nil, summary: String,
                    expect: [OutcomeExpectation], includedByDefault: Bool = true) -> Variant {
    let name = fixed.map { "\(placement.rawValue)@\($0.rawValue)" } ?? placement.rawValue
    return Variant(name, summary: summary, expect: expect, includedByDefault: includedByDefault,
                   budget: { o in RunloopTiming.bodyBudget(requests: o.int("tasks"), timeout: o.double("timeout")) + 10 },
                   stallWindow: { o in 3 * o.double("timeout") + 5 },
                   estimate: { o in
                       RunloopTiming.estimate(placement, caller: fixed ?? callerKind(o), requests: o.int("tasks"),
                                              timeout: o.double("timeout"))
                   },
                   progressTotal: { $0.int("tasks") }, progressMetric: "completed") { context in
        try RequestTrial.run(context, placement: placement, caller: fixed ?? callerKind(context.options))
    }
}
