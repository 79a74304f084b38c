import Foundation
import LabHarness

/// One trial of the request experiment: `requests` callers of one kind, each waiting for a
/// `timeout` timer on a run loop placed one way, measured step by step.
///
/// A trial with no completion for its deadlock window (`RunloopParameters.deadlockAfter`
/// timeouts) is a deadlock: it ends there with what it measured, and (in a child process) the
/// blocked threads die with the process.
enum RequestTrial {
    static func run(_ context: VariantContext, placement: Placement, caller: CallerKind) throws -> VariantRecord {
        let parameters = context.parameters(RunloopParameters.self)
        let count = parameters.tasks
        let timeout = parameters.timeout
        let baseline = ThreadCensus.count() ?? 0
        let log = RequestLog(count: count)
        let runtime = try PlacementRuntime(placement, timeout: timeout, log: log)
        let client = RequestClient(runtime: runtime, progress: context.progress)
        // Killed at its budget, the trial has seen nothing of its callers: say so, so that a
        // machine that gave it no CPU judges nothing.
        context.checkpoint(VariantRecord(outcome: .timedOut, mechanism: .notSeen("the trial was ended before it looked at its callers")))

        Callers.launch(caller, count: count, client: client)
        let stallWindow = parameters.deadlockWindow
        let waited = context.progress.wait(forAtLeast: count, stallWindow: stallWindow,
                                           budget: parameters.requestBodyBudget)
        let endedAt = MonotonicClock.now()
        let threadsAtEnd = ThreadCensus.threads()
        // Per-request run loops should return right after their timers fire; give them a moment,
        // then count the ones that did not (the seed's `run()` never does).
        if placement.runLoopPerRequest, waited.reached {
            let settle = endedAt + min(0.5, max(0.1, timeout))
            while log.count(\.released) < log.count(\.fired), MonotonicClock.now() < settle {
                MonotonicClock.sleep(for: 0.01)
            }
        }
        let unreturned = placement.runLoopPerRequest ? log.count(\.fired) - log.count(\.released) : 0
        let timeline = context.threads?.stop() ?? ThreadTimeline(interval: 0, startedAt: context.startedAt, samples: [], samplerCPU: nil)
        runtime.stop()

        let times = log.snapshot()
        // Stuck callers are seen where they wait, while they still wait (after the snapshot: a
        // caller that starts in between is in the stacks, not missing from them).
        var stacks: StackSnapshot?
        if case .stalled = waited, caller.blocks || placement.runsOnPool { stacks = StackCapture.captureOwn() }
        var metrics = RequestMetrics.compute(times, timeout: timeout, endedAt: endedAt, control: context.machineDelay)
        metrics[RunloopMetric.threadsPeak] = Double(timeline.peak)
        metrics[RunloopMetric.threadsBaseline] = Double(baseline)
        metrics[RunloopMetric.runloopThreadsPeak] = Double(runtime.gauge.peak)
        if placement.runLoopPerRequest { metrics[RunloopMetric.runloopsUnreturned] = Double(unreturned) }

        let origin = timeline.startedAt
        let lateness: [[Double]] = times.compactMap { t in
            guard let started = t.started, let fired = t.fired else { return nil }
            return [Decimals.round(started - origin, 4), Decimals.round((fired - started - timeout) * 1000, 3)]
        }
        let series = [SeriesKey.lateness: lateness.sorted { $0[0] < $1[0] }, SeriesKey.threads: timeline.series()]

        let outcome: Outcome
        let evidence: String
        let started = times.filter { $0.started != nil }.count
        let armed = times.filter { $0.armed != nil }.count
        let timely = "\(Format.count(metrics[RunloopMetric.timely] ?? 0)) of \(count) saw their \(Format.seconds(timeout)) timeout within \(Format.seconds(2 * timeout))"
        switch waited {
        case .reached:
            if unreturned > 0 {
                outcome = .leaked
                evidence = "\(unreturned) of \(count) run loops still running \(Format.seconds(MonotonicClock.now() - endedAt)) after the last timer stopped them (\(ThreadCensus.describe(ThreadCensus.threads())))"
            } else {
                outcome = .completed
                evidence = "\(count) of \(count) requests done; \(caller.phrase) queued up to \(Format.seconds(metrics[RunloopMetric.callerDelayMaxS] ?? 0)) before starting, at most \(Format.count(metrics[RunloopMetric.inFlightPeak] ?? 0)) in flight"
            }
        case .stalled(let value, _, let detectedAt):
            outcome = .deadlock
            metrics[RunloopMetric.stallDetectedS] = detectedAt - context.startedAt
            evidence = "no request finished for \(Format.seconds(stallWindow)) (\(Format.decimal(RunloopParameters.deadlockAfter, places: 0)) × timeout): \(value) of \(count) done (\(timely)), \(started) callers started, \(armed) timers armed; \(ThreadCensus.describe(threadsAtEnd))"
        case .outOfBudget(let value):
            outcome = .timedOut
            evidence = "still going when the trial's budget ran out: \(value) of \(count) done (\(timely))"
        }
        let mechanism = callersSeen(placement: placement, caller: caller, times: times, patience: timeout,
                                    runLoopsPeak: runtime.gauge.peak, stacks: stacks?.threads)
        let record = StackEvidence.attach(stacks, to: VariantRecord(outcome: outcome, metrics: metrics, evidence: evidence, series: series,
                                                                    mechanism: mechanism))
        // A stall whose threads were runnable but passed over by the scheduler is the
        // machine's (a deadlock's threads sleep): it judges nothing.
        if outcome == .deadlock,
           let starved = MachineCheck.starvation(pid: ProcessInfo.processInfo.processIdentifier, threads: threadsAtEnd, lifetime: context.elapsed()) {
            return starved.apply(to: record)
        }
        return record
    }

    /// What the trial saw of its callers: the mechanism every request claim rests on.
    ///
    /// Run loops on the pool (global-queue, operation-queue, run-until-date) miss their
    /// timeouts because callers that block hold the pool's threads: that needs callers that
    /// started and were seen blocked (threads waiting in the semaphore, by stacks where the
    /// platform takes them, else the count of callers started and not woken) with run loops
    /// queued behind them (not started within `patience`, one timeout); with async callers, run
    /// loops seen holding the pool's threads (in `CFRunLoopRun`). A thread placement's timings
    /// mean something only when every caller started and waited beside it. Zero callers started
    /// (a thread limit, a machine that gave the trial no CPU) is no mechanism, whatever the
    /// symptom. `nil`: run-until-date without global callers, whose finding then judges only
    /// its thread half.
    static func callersSeen(placement: Placement, caller: CallerKind, times: [RequestTimes], patience: Seconds,
                            runLoopsPeak: Int, stacks: [ThreadStack]?) -> Evidence? {
        let count = times.count
        // run-until-date's finding reads its global half only under global callers.
        if placement == .runUntilDate && caller != .global { return nil }
        if placement.runsOnPool {
            guard caller != .thread else {
                return .notSeen("this run's callers were \(caller.phrase), which leave the pool free; the claim is about callers that block on the global queue (--caller global)")
            }
            // Where the kernel states its pool's limit (Darwin), fewer callers than that each
            // get a thread at once, and nothing is left waiting for one.
            if caller == .global, let few = DispatchPoolSize.current.tooFewToExhaust(count, what: "callers") { return .notSeen(few) }
        }
        let started = times.filter { $0.started != nil }.count
        guard started > 0 else {
            return .notSeen("0 of \(count) callers had started: nothing waited (the machine gave the trial no thread or no CPU)")
        }
        guard placement.runsOnPool || started == count else {
            return .notSeen("only \(started) of \(count) callers started")
        }
        // Run loops that waited for a pool thread: not armed within one timeout of their
        // caller starting (or never).
        let queued = placement.runsOnPool ? times.filter { t in
            guard let s = t.started else { return false }
            return t.armed.map { $0 - s > patience } ?? true
        }.count : 0
        let behind = queued > 0 ? ", \(queued) run loops queued behind them for a pool thread" : ""
        let hasFrames = stacks?.contains { !$0.frames.isEmpty } == true
        guard caller.blocks else {
            guard placement.runsOnPool else {
                return .seen("all \(count) \(caller.phrase) started, up to \(RequestMetrics.inFlightPeak(times)) waiting at once")
            }
            // Async callers hold no thread, but on Linux their tasks run on the same default
            // pool: the run loops hold its threads, so tasks neither start nor resume.
            let clause = hasFrames ? stacks?.whereClause(in: "CFRunLoopRun", calledFrom: "\(TimeoutRunLoop.self).run") : nil
            return .when(runLoopsPeak > 0 && (!hasFrames || clause != nil),
                         "\(started) of \(count) async callers started; up to \(runLoopsPeak) run loops held pool threads at once" + (clause.map { "; stacks: \($0)" } ?? " (counts)"),
                         otherwise: "\(started) async callers started, but no run loop was seen holding a pool thread")
        }
        if placement.runsOnPool && queued == 0 {
            return .notSeen("every run loop started within one timeout of its caller: the callers did not hold the pool")
        }
        let from = "\(RequestClient.self).callBlocking"
        // Stacks whose frames could not be named (no time left on a loaded machine) say
        // nothing either way; the counts below still do.
        let named = stacks?.contains { $0.frames.contains { $0.contains(RunloopVerdicts.semaphoreWaitFrame) || $0.contains(from) } } == true
        if let stacks, hasFrames, named {
            guard let clause = stacks.whereClause(in: RunloopVerdicts.semaphoreWaitFrame, calledFrom: from) else {
                return .notSeen("\(started) callers started, but the stacks show none waiting in a semaphore called from \(from)")
            }
            return .seen("\(started) of \(count) callers started\(behind); stacks: \(clause)")
        }
        let blocked = RequestMetrics.inFlightPeak(times)
        return .when(blocked > 0, "\(started) of \(count) callers started, up to \(blocked) blocked in a semaphore at once (counts)\(behind)",
                     otherwise: "\(started) callers started, none seen blocked")
    }
}

/// The contract's metrics from the requests' times.
enum RequestMetrics {
    /// `control` gives the same-moment delay of a control thread over an interval (see
    /// `StallWatch`); with it (or the firing thread's own run-queue wait, when larger), each
    /// timer's lateness minus the machine's own at that moment becomes `lateness.excess.*`, the
    /// part the placement is responsible for.
    static func compute(_ times: [RequestTimes], timeout: Seconds, endedAt: Seconds,
                        control: (Seconds, Seconds) -> Seconds = { _, _ in 0 }) -> Metrics {
        var m = Metrics()
        let done = times.filter { $0.woke != nil }
        m[RunloopMetric.total] = Double(times.count)
        m[RunloopMetric.completed] = Double(done.count)
        m[RunloopMetric.fired] = Double(times.filter { $0.fired != nil }.count)
        // "Saw its timeout": the caller woke within twice the timeout of starting to wait.
        m[RunloopMetric.timely] = Double(times.filter { t in
            guard let s = t.started, let w = t.woke else { return false }
            return w - s <= 2 * timeout
        }.count)
        let firstStart = times.compactMap(\.started).min()
        let lastWake = times.compactMap(\.woke).max()
        if let firstStart {
            // First request started to last request done; for an unfinished run, to its end.
            let end = done.count == times.count ? (lastWake ?? endedAt) : endedAt
            m[RunloopMetric.wallS] = end - firstStart
            // The part of that wall time the machine itself took (a control thread was held
            // up as long): what a stall added, not the placement or the callers.
            m[RunloopMetric.wallControlDelayS] = control(firstStart, end)
        }
        // A request still waiting when the trial ended waited at least until then: its wait
        // (and its timer's lateness, once its deadline has passed) enters the percentiles as a
        // lower bound, and the `.censored` count says how many did. With any censored sample,
        // every percentile is a lower bound too ("≥" in the table): a deadlocked variant still
        // reports how long its callers had waited, rather than nothing.
        var waits: [Double] = [], waitsCensored = 0
        var lateness: [Double] = [], latenessCensored = 0, excess: [Double] = []
        for t in times {
            guard let s = t.started else { continue }
            if let w = t.woke { waits.append(w - s) } else { waits.append(endedAt - s); waitsCensored += 1 }
            let due = s + timeout
            let end = t.fired ?? max(due, endedAt)
            if t.fired == nil { latenessCensored += 1 }
            lateness.append(t.fired.map { $0 - due } ?? (end - due))
            // Beyond what the machine took: the control's delay, or the run-queue wait of the
            // thread that fired the timer, whichever is more.
            excess.append(max(0, end - due - max(control(due, end), t.runQueueWait ?? 0)))
        }
        if let w = LatencySummary(waits) {
            m[RunloopMetric.waitP50S] = w.p50
            m[RunloopMetric.waitP99S] = w.p99
            m[RunloopMetric.waitMaxS] = w.max
            m[RunloopMetric.waitCensored] = Double(waitsCensored)
        }
        if let l = LatencySummary(lateness) {
            m[RunloopMetric.latenessP50Ms] = l.p50 * 1000
            m[RunloopMetric.latenessP99Ms] = l.p99 * 1000
            m[RunloopMetric.latenessMaxMs] = l.max * 1000
            m[RunloopMetric.latenessCensored] = Double(latenessCensored)
        }
        if let e = LatencySummary(excess) {
            m[RunloopMetric.latenessExcessP50Ms] = e.p50 * 1000
            m[RunloopMetric.latenessExcessP99Ms] = e.p99 * 1000
            m[RunloopMetric.latenessExcessMaxMs] = e.max * 1000
        }
        let armDelays = times.compactMap { t -> Double? in
            guard let s = t.started, let a = t.armed else { return nil }
            return a - s
        }
        if let a = LatencySummary(armDelays) {
            m[RunloopMetric.armDelayP50S] = a.p50
            m[RunloopMetric.armDelayMaxS] = a.max
        }
        // How long callers sat in their queue before running at all; for the ones that never
        // ran, a lower bound as above.
        var callerDelays: [Double] = [], callersCensored = 0
        for t in times {
            guard let q = t.submitted else { continue }
            if let s = t.started { callerDelays.append(s - q) } else { callerDelays.append(endedAt - q); callersCensored += 1 }
        }
        if let c = LatencySummary(callerDelays) {
            m[RunloopMetric.callerDelayMaxS] = c.max
            m[RunloopMetric.callerDelayCensored] = Double(callersCensored)
        }
        m[RunloopMetric.callersStarted] = Double(times.filter { $0.started != nil }.count)
        m[RunloopMetric.inFlightPeak] = Double(inFlightPeak(times))
        return m
    }

    /// The most callers waiting at once (started, not yet woken).
    static func inFlightPeak(_ times: [RequestTimes]) -> Int {
        var edges: [(Seconds, Int)] = []
        for t in times {
            guard let s = t.started else { continue }
            edges.append((s, 1))
            if let w = t.woke { edges.append((w, -1)) }
        }
        edges.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        var now = 0, peak = 0
        for (_, d) in edges { now += d; peak = max(peak, now) }
        return peak
    }
}

/// Fixed decimal places for series points, so JSON stays readable.
enum Decimals {
    static func round(_ value: Double, _ places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (value * scale).rounded() / scale
    }
}
