import LabHarness

/// The part of exp-runloop that keeps many timeouts: the timeout designs' flags, variants and
/// the findings the sweep over them evaluates. `RunloopExperiment.swift` refers to it by this name.
enum RunloopScale {
    /// The flags of the designs that keep many timeouts: the sweep, and its children's point.
    static let flags: [FlagSpec] = [
        FlagSpec("sweep", .text(default: nil),
                 help: "run every design that does not block on the pool (\(ScaleParameters.sweptDesigns.map(\.rawValue).joined(separator: ", "))) with async callers at each count, each point in a process of its own: one table, one chart (such as 10,100,1000,10000; up to \(ScaleParameters.maxTasks))",
                 valueName: "N,N,...", reportKey: "sweep"),
        FlagSpec("sweep-point", .text(default: nil), help: "internal: one point of a sweep, DESIGN:COUNT", valueName: "DESIGN:N", hidden: true),
    ]

    /// The designs that keep many requests' timeouts without a timer per request on the run loop
    /// (async callers only: each caller is a task racing its timeout), and the sweep over all of them.
    static let variants: [Variant] = [
        designVariant(.deadlineHeap, summary: "shared-thread's run-loop thread with ONE timer, re-armed for the earliest deadline of a min-heap (async callers)",
                      completed: "every request woken by its timeout, on one run-loop thread, whatever the count"),
        designVariant(.dispatchTimer, summary: "no run loop: a DispatchSourceTimer per request on one serial queue (async callers)",
                      completed: "every request woken by its timeout; libdispatch keeps the timers, no thread of the design's own"),
        designVariant(.taskSleep, summary: "no run loop, no thread: a child task sleeping until the deadline races the request (async callers)",
                      completed: "every request woken by its timeout; the runtime's delayed jobs ride libdispatch's timers"),
        Variant(RunloopVariant.sweep, summary: "--sweep: each design above and shared-thread at each count, async callers, one process per point",
                expect: [
                    OutcomeExpectation(.completed, .expected, "every point finished: the table and the chart are complete"),
                    OutcomeExpectation(.timedOut, .interesting, "a point did not finish in its budget: that design fell behind at that count"),
                ],
                includedByDefault: false, limits: ScaleParameters.sweepLimits, body: RunloopSweep.run),
    ]

    /// A timeout design's variant: `--tasks` async requests racing their timeouts, kept by `name`'s
    /// design. They share their outcomes but for what completing means for each.
    static func designVariant(_ name: RunloopVariant, summary: String, completed: String) -> Variant {
        Variant(name, summary: summary,
                expect: [
                    OutcomeExpectation(.completed, .expected, completed),
                    OutcomeExpectation(.timedOut, .interesting, "still firing when the budget ran out: the design fell behind"),
                    OutcomeExpectation(.firesEarly, .forbidden, "a request was woken before its deadline"),
                ],
                includedByDefault: false, limits: ScaleParameters.designLimits) { context in
            guard let design = name.timeoutDesign else { throw SetupError("\(name.rawValue) is not a timeout design") }
            return try ScaleTrial.run(context, design: design)
        }
    }

    /// The findings the sweep evaluates.
    static let findings: [Finding] = [
        Finding("runloop.per-request-timers-degrade",
                claim: "with one run-loop timer per request (shared-thread), p99 lateness grows with the number of requests (≥ 5× over a sweep spanning 100×, beyond a same-moment control)",
                needs: [RunloopVariant.sweep], evaluate: RunloopVerdicts.perRequestTimersDegrade),
        Finding("runloop.deadline-heap-scales",
                claim: "at the sweep's largest count deadline-heap wakes every request on time (p99 within 50 ms of a same-moment control and at least 5× less late than shared-thread), adding at most 2 threads",
                needs: [RunloopVariant.sweep], evaluate: RunloopVerdicts.deadlineHeapScales),
    ]
}
