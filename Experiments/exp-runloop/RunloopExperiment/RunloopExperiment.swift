import LabHarness

/// exp-runloop: where should a request's run loop live, and who may block waiting for it?
///
/// The article (ChenYilong, "避免使用GCD-Global队列创建Runloop常驻线程") times out 300 requests, each
/// with a 1 s timer on a run loop, while each caller blocks on a semaphore. This declaration lists
/// the placements of that run loop and the run-loop pitfalls around it (xiangwangfeng's
/// synchronous wrappers), with the outcomes each is expected to show; the findings check the
/// claims against what was measured. Mechanics live in `Variants/` (`Requests/`, `Pitfalls/`, `Timeouts/`).
public let runloopExperiment = ExperimentDefinition(
    name: "runloop",
    executable: "exp-runloop",
    question: "Where may a request's run loop live, and who may block waiting for it?",
    about: """
        With no flags: the article's parameters (300 requests, 1 s timeout, every caller a block on the \
        global queue waiting on a semaphore) for each run-loop placement, the same placements again with \
        async callers for comparison, and the run-loop pitfalls. Each variant runs in its own process, \
        several at once: blocked threads cost no CPU, and every process has its own dispatch pool. \
        A variant with no completion for \(Int(RunloopParameters.deadlockAfter)) x timeout is a deadlock. The pitfalls have their own \
        durations (--request, --interval, --guard). The default run takes about 23 s, \
        because that is how long the global queue's pool needs to get 300 blocked callers through \
        (it adds about one thread per second); --quick shows the same findings in a few seconds.
        """,
    flags: RunloopParameters.flags,
    variants: [
        requestVariant(
            .globalQueue, summary: "the run loop runs in a block on the global queue (the article's second way)",
            expect: [
                .expected(
                    .deadlock,
                    "the run-loop blocks wait for pool threads that the waiting callers hold: no caller wakes"),
                .interesting(
                    .completed,
                    "every caller woke, late: the pool had room (few requests, or callers that do not block)"),
                .interesting(.timedOut, "still trickling when the budget ran out"),
            ],
            claim: Claim(
                "runloop.global-queue-misses-timeouts",
                "with run loops on the global queue and callers blocked on it, requests see their timeout far too late or never",
                premiseMissing: RunloopVerdicts.callersLeaveThePoolFree
            )),
        requestVariant(
            .runUntilDate, summary: "global-queue with the article's double guard, run(until: timeout + guard)",
            expect: [
                .expected(.deadlock, "the guard never runs: it is inside the block that never starts"),
                .interesting(.completed, "every caller woke, late: the pool had room (callers that do not block it)"),
                .interesting(
                    .leaked,
                    "callers woke, but each run loop held its pool thread until the guard date: run(until:) ignores CFRunLoopStop"
                ),
                .interesting(.timedOut, "still trickling when the budget ran out"),
            ]),
        // Kept as a placement because it answers a belief of its own: maxConcurrentOperationCount
        // 300 is a ceiling, not 300 threads; the operations still wait for the global pool.
        requestVariant(
            .operationQueue,
            summary:
                "the run loop runs in an OperationQueue operation (maxConcurrentOperationCount 300: a ceiling, not threads)",
            expect: [
                .expected(.deadlock, "operation queues run on the same global pool: no better than global-queue"),
                .interesting(.completed, "every caller woke, late: the pool had room"),
                .interesting(.timedOut, "still trickling when the budget ran out"),
            ]),
        requestVariant(
            .globalQueue, callers: .operationQueue,
            summary:
                "global-queue with the article's commented-out callers: an operation each on an OperationQueue (maxConcurrentOperationCount 300)",
            expect: [
                .expected(
                    .deadlock,
                    "blocked operations hold pool threads like blocked global-queue blocks: the run loops never start"),
                .interesting(.completed, "every caller woke: the operations did not hold the pool the run loops need"),
                .interesting(.timedOut, "still trickling when the budget ran out"),
            ],
            claim: Claim(
                "runloop.operation-queue-callers-hold-the-pool",
                "callers that are operations on an OperationQueue (maxConcurrentOperationCount 300) block pool threads like global-queue callers: run loops on the global queue see their timeouts far too late or never"
            )),
        Variant(
            RunloopVariant.runUntilDateThread,
            "the double guard with thread callers: run(until: timeout + guard) beside run(), both on the global queue",
            expect: [
                .expected(.completed, "run(until:) released its thread at about timeout + guard; run() kept its own"),
                .interesting(
                    .leaked, "run(until:) still held its thread \(Int(GuardRelease.grace)) s past its guard date"),
                .forbidden(.stalled, "a caller never woke: thread callers leave the pool free for the run loops"),
            ],
            time: .from(\RunloopParameters.guardTime), instruments: [.stallWatch], body: GuardRelease.run),
        requestVariant(
            .dedicatedThread, summary: "a new Thread per request runs its run loop (the article's first way)",
            expect: [
                .expected(.completed, "every timer fired on time; the total time depends on the callers"),
                .forbidden(.deadlock, "a thread of its own cannot wait behind the pool"),
            ]),
        requestVariant(
            .sharedThread,
            summary: "one long-lived run-loop thread, kept alive by a port, serves every timer (AFNetworking 2.x)",
            expect: [
                .expected(.completed, "every timer fired on time, on one thread"),
                .forbidden(.deadlock, "the shared thread does not depend on the pool"),
            ]),
        requestVariant(
            .dedicatedThread, callers: .async,
            summary: "dedicated-thread with async callers (added to the default run when --caller is global)",
            expect: [
                .expected(.completed, "all requests done in about one timeout"),
                .forbidden(.deadlock, "nothing here waits for the pool"),
            ], includedByDefault: false),
        requestVariant(
            .sharedThread, callers: .async,
            summary: "shared-thread with async callers: the performance bar (added like the one above)",
            expect: [
                .expected(.completed, "all requests done in about one timeout, on one run-loop thread"),
                .forbidden(.deadlock, "nothing here waits for the pool"),
            ], includedByDefault: false),
        requestVariant(
            .literalRun, summary: "dedicated-thread as the article wrote it: a port, RunLoop.run() and CFRunLoopStop",
            expect: [
                .expected(.leaked, "run() ignores CFRunLoopStop: every request leaves its thread running its run loop"),
                .interesting(
                    .completed, "run() returned after the stop: this Foundation differs from Linux and Darwin"),
                .forbidden(.deadlock, "callers wake from the timer, whatever the run loop does next"),
            ], includedByDefault: false),
        Variant(
            RunloopVariant.spinNoSource, "a wrapper spins run(mode:before:) on a thread whose run loop has no source",
            expect: [
                .expected(
                    .busyLoop,
                    "run(mode:before:) returned at once on every pass: a busy loop (\(SpinWrapper.busyCPU) or \(SpinWrapper.busyRunnable))"
                ),
                .forbidden(.completed, "the loop slept without a source: not how Foundation behaves"),
            ],
            time: .seconds { (p: RunloopParameters) in p.interval + 0.1 }
        ) { SpinWrapper.run($0, withSource: false) },
        Variant(
            RunloopVariant.spinWithSource, "the same wrapper after adding a SocketPort to the run loop",
            expect: [
                .expected(.completed, "each pass slept until the request finished"),
                .forbidden(.busyLoop, "the port did not keep the run loop asleep"),
            ],
            time: .seconds { (p: RunloopParameters) in p.interval + 0.1 }
        ) { SpinWrapper.run($0, withSource: true) },
        Variant(
            RunloopVariant.syncSemaphoreMain,
            "the main thread waits on a semaphore for a completion delivered on the main queue",
            expect: [
                .expected(.deadlock, "the completion is queued for the main thread, which is blocked waiting for it"),
                .forbidden(.completed, "the main queue ran while the main thread was blocked"),
            ],
            time: .from { (p: RunloopParameters) in p.wrapperTime(hangs: true) }, progressMetric: RunloopMetric.steps,
            body: MainThreadWrapper.semaphore),
        Variant(
            RunloopVariant.syncRunloopMain, "the main thread runs its run loop until the completion has run",
            expect: [
                .expected(.completed, "the run loop drained the main queue, the completion ran, the wrapper returned"),
                .forbidden(.deadlock, "the main run loop did not run the main queue"),
            ],
            time: .from { (p: RunloopParameters) in p.wrapperTime(hangs: false) }, progressMetric: RunloopMetric.steps,
            body: MainThreadWrapper.runLoop),
        Variant(
            RunloopVariant.timerInit, "first-fire delay of each Timer constructor, same interval",
            expect: [
                .expected(.completed, "every constructor waited its interval (Darwin)"),
                .interesting(
                    .firesEarly, "Timer(timeInterval:) fired at once (swift-corelibs-foundation #4712, Linux)"),
            ],
            time: .seconds { (p: RunloopParameters) in p.interval + 0.1 }, instruments: [.stallWatch],
            body: TimerInit.run),
    ] + RunloopScale.variants,
    findings: [
        Finding(
            "runloop.dedicated-thread-honors-timeouts",
            claim:
                "with a thread per run loop every timer fires within \(Format.number(RunloopVerdicts.onTimeThreshold.value)) ms of its deadline (p99), "
                + "beyond what a same-moment control thread was held up",
            needs: [RunloopVariant.dedicatedThread], thresholds: [RunloopVerdicts.onTimeThreshold],
            evaluate: RunloopVerdicts.dedicatedThreadHonorsTimeouts),
        Finding(
            "runloop.shared-thread-scales",
            claim:
                "one run loop thread serves all requests' timers on time (as above), adding one thread, not one per request",
            needs: [RunloopVariant.sharedThread], thresholds: [RunloopVerdicts.onTimeThreshold],
            evaluate: RunloopVerdicts.sharedThreadScales),
        Finding(
            "runloop.blocked-callers-throttle",
            claim:
                "callers blocked on the global queue stretch the total time even when every timer is on time; async callers finish all requests about one timeout after their run loops are armed",
            needs: [RunloopVariant.dedicatedThread, .dedicatedThreadAsync],
            premiseMissing: RunloopVerdicts.callersAreNotGlobal,
            thresholds: [
                RunloopVerdicts.onTimeThreshold, RunloopVerdicts.stretch, RunloopVerdicts.aboutOneTimeout,
                RunloopVerdicts.latestTimerShare, RunloopVerdicts.setUpShare,
            ],
            evaluate: RunloopVerdicts.blockedCallersThrottle),
        Finding(
            "runloop.no-source-spins",
            claim:
                "no source means a busy loop (\(SpinWrapper.busyCPU) or \(SpinWrapper.busyRunnable) of the time); a source brings it near zero (\(RunloopVerdicts.quietCPU))",
            needs: [RunloopVariant.spinNoSource, .spinWithSource],
            thresholds: [
                SpinWrapper.busyCPU, SpinWrapper.busyRunnable, RunloopVerdicts.quietCPU,
                RunloopVerdicts.returnsAtOnce,
            ], evaluate: RunloopVerdicts.noSourceSpins),
        Finding(
            "runloop.semaphore-sync-deadlocks-main",
            claim: "the semaphore wrapper on the main thread deadlocks; the run loop wrapper completes",
            needs: [RunloopVariant.syncSemaphoreMain, .syncRunloopMain],
            evaluate: RunloopVerdicts.semaphoreSyncDeadlocksMain),
        Finding(
            "runloop.run-until-date-releases-at-guard",
            claim:
                "with callers that give the block a thread, run(until: timeout + guard) releases its thread at about timeout + guard while run() never does; under global callers the run-loop blocks never start "
                + "(at most \(Format.number(RunloopVerdicts.fewStarted.value)) % of them do), guard and all",
            needs: [RunloopVariant.runUntilDate, .runUntilDateThread],
            thresholds: [RunloopVerdicts.guardEarly, RunloopVerdicts.guardLate, RunloopVerdicts.fewStarted],
            evaluate: RunloopVerdicts.runUntilDateReleasesAtGuard),
        Finding(
            "runloop.linux-timer-init-fires-immediately",
            claim: "Timer(timeInterval:repeats:block:) fires at once on Linux, not after its interval",
            needs: [RunloopVariant.timerInit], appliesWhen: { $0.isLinux },
            notApplicableReason: "Darwin's Foundation waits the interval",
            thresholds: [TimerInit.atOnce, TimerInit.afterInterval, TimerInit.stallCovers],
            evaluate: RunloopVerdicts.linuxTimerInitFiresImmediately),
    ],
    columns: runloopColumns,
    defaultJobs: 4,
    extraSections: runloopSections,
    performanceBars: [RunloopBar.bar, RunloopScaleBars.flood, RunloopScaleBars.tenfold],
    sweep: RunloopScale.sweep,
    parameters: RunloopParameters.self
)

/// The outcomes exp-runloop defines: a wrapper's `run(mode:before:)` returned at once on every
/// pass (it spun); `Timer(timeInterval:)` fired before half its interval, net of machine stalls.
public extension Outcome {
    static let busyLoop: Outcome = "busy-loop", firesEarly: Outcome = "fires-early"
}

/// A variant that times out `--tasks` requests with their run loops placed one way, named
/// after its placement (`RunloopVariant(placement, callers:)`). With `callers`, the variant
/// always has those; otherwise it has the callers `--caller` says.
func requestVariant(
    _ placement: Placement, callers fixed: CallerKind? = nil, summary: String, expect: [OutcomeExpectation],
    includedByDefault: Bool = true, claim: Claim? = nil
) -> Variant {
    Variant(
        RunloopVariant(placement, callers: fixed), summary, expect: expect, claim: claim,
        includedByDefault: includedByDefault,
        time: .from { (p: RunloopParameters) in p.requestTime(placement, caller: fixed ?? p.caller) },
        instruments: [.stallWatch, .threadTimeline], progressMetric: RunloopMetric.completed
    ) { context in
        try RequestTrial.run(
            context, placement: placement, caller: fixed ?? context.parameters(RunloopParameters.self).caller)
    }
}
