import LabHarness

/// The part of exp-runloop that keeps many timeouts: the timeout designs' variants and the
/// sweep over them (`--sweep 10,100,1000,10000`), with its findings. `RunloopExperiment.swift`
/// refers to it by this name.
enum RunloopScale {
    /// The designs that keep many timeouts without a run-loop timer per request, which run as
    /// variants of their own (`--caller async --variant deadline-heap`).
    static let designs: [TimeoutDesignName] = [.deadlineHeap, .dispatchTimer, .taskSleep]

    static let variants = designs.map(variant)

    /// deadline-heap is on time by the request placements' rule.
    private static let onTime = number(RunloopVerdicts.onTimeThreshold)

    /// Every design, shared-thread's timer per request first, at every size of `--sweep`.
    static let sweep = Sweep(
        flag: "sweep", parameter: "tasks", range: 1...ScaleParameters.maxTasks,
        help:
            "run every design that does not block on the pool (\(TimeoutDesignName.allCases.map(\.rawValue).joined(separator: ", "))) with async callers at each count, each point in a process of its own, one at a time: one table, one chart (such as 10,100,1000,10000; up to \(ScaleParameters.maxTasks))",
        variants: TimeoutDesignName.allCases.map(variant),
        findings: [
            Finding(
                "runloop.per-request-timers-degrade",
                claim:
                    "with one run-loop timer per request (shared-thread), p99 lateness grows with the number of requests (≥ \(number(SweepVerdicts.ratio))× over a sweep spanning \(number(SweepVerdicts.span))×, beyond a same-moment control)",
                needs: [TimeoutDesignName.sharedThread],
                thresholds: [SweepVerdicts.ratio, SweepVerdicts.span, SweepVerdicts.noiseFloor],
                evaluate: SweepVerdicts.perRequestTimersDegrade),
            Finding(
                "runloop.deadline-heap-scales",
                claim:
                    "at the sweep's largest count deadline-heap wakes every request on time (p99 within \(onTime) ms of a same-moment control and at least \(number(SweepVerdicts.ratio))× less late than shared-thread), adding at most \(number(SweepVerdicts.threads)) threads",
                needs: [TimeoutDesignName.sharedThread, .deadlineHeap],
                thresholds: [
                    SweepVerdicts.ratio, RunloopVerdicts.onTimeThreshold, SweepVerdicts.threads,
                    SweepVerdicts.noiseFloor,
                ],
                evaluate: SweepVerdicts.deadlineHeapScales),
        ],
        headers: ("design", "requests"),
        columns: [
            .decimal("wall/T", RunloopMetric.wallPerTimeout, places: 3),
            .milliseconds("late p50", RunloopMetric.latenessP50Ms),
            .milliseconds("p99", RunloopMetric.latenessP99Ms),
            .milliseconds("max", RunloopMetric.latenessMaxMs),
            .milliseconds("floor", RunloopMetric.floorP99Ms),
            .milliseconds("net p99", RunloopMetric.latenessNetP99Ms),
            .count("threads+", RunloopMetric.threadsAdded),
            .decimal("peak MB", RunloopMetric.memoryPeakMB, places: 0),
            .decimal("CPU s", RunloopMetric.cpuS),
        ],
        chart: (RunloopMetric.latenessP99Ms, "p99 lateness against requests", Format.milliseconds),
        notes: { priorityNote($0).map { [$0] } ?? [] },
        pointFlags: ["caller": .word(CallerKind.async.rawValue)])

    /// A design's variant: `--tasks` async requests racing their timeouts, kept by `design`.
    static func variant(_ design: TimeoutDesignName) -> Variant {
        let (summary, completed) =
            switch design {
            case .sharedThread:
                (
                    "one run-loop thread, one run-loop timer per request (async callers; in sweeps)",
                    "every request woken by its timeout, one run-loop timer each, on one thread"
                )
            case .deadlineHeap:
                (
                    "shared-thread's run-loop thread with ONE timer, re-armed for the earliest deadline of a min-heap (async callers)",
                    "every request woken by its timeout, on one run-loop thread, whatever the count"
                )
            case .dispatchTimer:
                (
                    "no run loop: a DispatchSourceTimer per request on one serial queue (async callers)",
                    "every request woken by its timeout; libdispatch keeps the timers, no thread of the design's own"
                )
            case .taskSleep:
                (
                    "no run loop, no thread: a child task sleeping until the deadline races the request (async callers)",
                    "every request woken by its timeout; the runtime's delayed jobs ride libdispatch's timers"
                )
            }
        // The control runs at the priority class of the design's own thread, so it is held up
        // by what holds that thread up, and by nothing more.
        return Variant(
            design, summary,
            expect: [
                .expected(.completed, completed),
                .interesting(.timedOut, "still firing when the budget ran out: the design fell behind"),
                .forbidden(.firesEarly, "a request was woken before its deadline"),
            ],
            includedByDefault: false, time: ScaleParameters.time,
            instruments: design.runsOnRealtimeThread ? [.realtimeStallWatch] : [.stallWatch]
        ) { TimeoutTrial.run($0, design: design) }
    }

    /// What priority the designs' own threads ran at, since it is part of what was measured.
    static func priorityNote(_ points: [SweepPoint]) -> String? {
        let asked = points.filter { $0[RunloopMetric.threadsRealtime] != nil }
        guard !asked.isEmpty else { return nil }
        let names = asked.map(\.variant).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        let refused = asked.count { $0[RunloopMetric.threadsRealtime] == 0 },
            designs = "threads of their own (\(names.joined(separator: ", ")))"
        if refused == 0 { return "\(designs): real-time priority (SCHED_FIFO), at every point" }
        if refused == asked.count {
            return "\(designs): normal priority, real-time was refused (needs root, CAP_SYS_NICE or RLIMIT_RTPRIO)"
        }
        return "\(designs): real-time priority refused at \(refused) of \(asked.count) points"
    }
}

/// A threshold's number, for a claim that quotes it.
private func number(_ threshold: Threshold) -> String { Format.number(threshold.value) }
