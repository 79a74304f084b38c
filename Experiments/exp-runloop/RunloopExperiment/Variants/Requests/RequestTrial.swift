import Foundation
import LabHarness

/// One trial of the request experiment: `--tasks` callers of one kind, each waiting for a
/// `--timeout` timer on a run loop placed one way, measured step by step. No completion for the
/// deadlock window is a deadlock: the trial ends with what it measured (the blocked threads die
/// with the child process).
enum RequestTrial {
    static func run(_ context: VariantContext, placement: Placement, caller: CallerKind) throws -> VariantRecord {
        let parameters = context.parameters(RunloopParameters.self)
        let count = parameters.tasks, timeout = parameters.timeout, baseline = ThreadCensus.count() ?? 0
        let log = StepTable(count: count, row: RequestTimes())
        let runtime = try PlacementRuntime(placement, timeout: timeout, guardSeconds: parameters.guardSeconds, log: log)
        let client = RequestClient(runtime: runtime, progress: context.progress)
        // Killed at its budget, the trial has seen nothing of its callers: say so, so that a
        // machine that gave it no CPU judges nothing.
        context.checkpoint(
            VariantRecord(
                outcome: .timedOut, mechanism: .notSeen("the trial was ended before it looked at its callers")))

        Callers.launch(caller, count: count, client: client)
        let stallWindow = parameters.deadlockWindow
        let waited = context.progress.wait(
            forAtLeast: count, stallWindow: stallWindow, budget: parameters.requestBodyBudget)
        let endedAt = MonotonicClock.now()
        let threadsAtEnd = ThreadCensus.threads()
        // Per-request run loops return right after their timers fire (the article's `run()` never
        // does): give them a moment, then count the ones still running.
        if placement.runLoopPerRequest, waited.reached {
            let settle = endedAt + min(0.5, max(0.1, timeout))
            while log.count(\.released) < log.count(\.fired), MonotonicClock.now() < settle {
                MonotonicClock.sleep(for: 0.01)
            }
        }
        let unreturned = placement.runLoopPerRequest ? log.count(\.fired) - log.count(\.released) : 0
        // The thread timeline (`.threadTimeline`): the harness adds its series to the record.
        let timeline = context.threads?.stop()
        runtime.stop()

        let times = log.snapshot()
        // Stuck callers are seen where they wait, while they still wait (after the snapshot: a
        // caller that starts in between is in the stacks, not missing from them). The harness
        // attaches them to the record.
        let unarmed = times.contains { $0.started != nil && $0.armed == nil }
        let stuck = if case .stalled = waited { caller.blocks || placement.runsOnPool || unarmed } else { false }
        let stacks = stuck ? context.captureStacks() : nil
        var metrics = RequestMetrics.compute(times, timeout: timeout, endedAt: endedAt, control: context.machineDelay)
        metrics[RunloopMetric.threadsPeak] = Double(timeline?.peak ?? 0)
        metrics[RunloopMetric.threadsBaseline] = Double(baseline)
        metrics[RunloopMetric.runloopThreadsPeak] = Double(runtime.gauge.peak)
        // Every request whose run loop ever armed its timer (its block or thread started), at
        // once or one after another: a peak-at-once gauge misses the ones that already ended.
        metrics[RunloopMetric.timersArmed] = Double(times.count { $0.armed != nil })
        metrics[RunloopMetric.runloopThreadsUsed] = Double(Set(times.compactMap(\.armedOn)).count)
        if placement.runLoopPerRequest { metrics[RunloopMetric.runloopsUnreturned] = Double(unreturned) }

        let origin = timeline?.startedAt ?? context.startedAt
        let lateness: [[Double]] = times.compactMap { t in
            guard let started = t.started, let fired = t.fired else { return nil }
            return [rounded(started - origin, places: 4), rounded((fired - started - timeout) * 1000, places: 3)]
        }

        let outcome: Outcome, evidence: String
        let started = times.count { $0.started != nil }, armed = times.count { $0.armed != nil }
        let s = Format.seconds, sawTimeout = Format.count(metrics[RunloopMetric.timely] ?? 0)
        let timely = "\(sawTimeout) of \(count) saw their \(s(timeout)) timeout within \(s(2 * timeout))"
        switch waited {
        case .reached:
            if unreturned > 0 {
                outcome = .leaked
                let since = s(MonotonicClock.now() - endedAt), threads = ThreadCensus.describe(ThreadCensus.threads())
                evidence =
                    "\(unreturned) of \(count) run loops still running \(since) after the last timer stopped them (\(threads))"
            } else {
                outcome = .completed
                let queued = s(metrics[RunloopMetric.callerDelayMaxS] ?? 0)
                let inFlight = Format.count(metrics[RunloopMetric.inFlightPeak] ?? 0)
                evidence =
                    "\(count) of \(count) requests done; \(caller.phrase) queued up to \(queued) before starting, at most \(inFlight) in flight"
            }
        case .stalled(let value, _, let detectedAt):
            outcome = .deadlock
            metrics[RunloopMetric.stallDetectedS] = detectedAt - context.startedAt
            let after = Format.decimal(RunloopParameters.deadlockAfter, places: 0)
            let threads = ThreadCensus.describe(threadsAtEnd)
            evidence =
                "no request finished for \(s(stallWindow)) (\(after) × timeout): \(value) of \(count) done (\(timely)), \(started) callers started, \(armed) timers armed; \(threads)"
        case .outOfBudget(let value):
            outcome = .timedOut
            evidence = "still going when the trial's budget ran out: \(value) of \(count) done (\(timely))"
        }
        let mechanism = callersSeen(
            placement: placement, caller: caller, times: times, patience: timeout,
            runLoopsPeak: runtime.gauge.peak, stacks: stacks)
        let series = [SeriesKey.lateness: lateness.sorted { $0[0] < $1[0] }]
        let record = VariantRecord(
            outcome: outcome, metrics: metrics, evidence: evidence, series: series, mechanism: mechanism)
        // A stall whose threads were runnable but passed over by the scheduler is the
        // machine's (a deadlock's threads sleep): it judges nothing.
        return record.unlessStarved(threads: threadsAtEnd, lifetime: context.elapsed())
    }

    /// What the trial saw of its callers: the mechanism every request claim rests on. Run
    /// loops on the pool miss their timeouts because blocked callers hold its threads: callers
    /// seen blocked (in the semaphore by stacks, else by counts) with run loops queued behind
    /// them (not armed within `patience`); with async callers, run loops seen holding pool
    /// threads. A thread placement's timings count only when every caller started. Zero callers
    /// started is no mechanism, whatever the symptom. `nil`: run-until-date without global
    /// callers, whose finding then judges only its thread half, and a pool placement with thread
    /// callers, which leave the pool free (no claim reads that run: its premise is missing).
    static func callersSeen(
        placement: Placement, caller: CallerKind, times: [RequestTimes], patience: TimeInterval,
        runLoopsPeak: Int, stacks: StackSnapshot?
    ) -> Evidence? {
        let count = times.count
        // run-until-date's finding reads its global half only under global callers.
        if placement == .runUntilDate && caller != .global { return nil }
        if placement.runsOnPool {
            guard caller != .thread else { return nil }
            // Where the kernel states its pool's limit (Darwin), fewer callers than that each
            // get a thread at once, and nothing is left waiting for one.
            if caller == .global, let few = DispatchPoolSize.current.tooFewToExhaust(count, what: "callers") {
                return .notSeen(few)
            }
        }
        let started = times.count { $0.started != nil }
        guard started > 0 else {
            return .notSeen(
                "0 of \(count) callers had started: nothing waited (the machine gave the trial no thread or no CPU)")
        }
        guard placement.runsOnPool || started == count else {
            return .notSeen("only \(started) of \(count) callers started")
        }
        let hasFrames = stacks?.hasFrames == true
        // A thread placement's claims are about timers on run loops of their own: a timer never
        // armed tests none of them. On Linux a run loop's first use takes Foundation's table of
        // run loops under a lock that spins (`_CFRunLoopGet0`'s `loopsLock`, `sleep(0)` in a
        // loop) while its holder makes the loop's descriptors; hundreds of threads starting at
        // once (after a stall, or on a loaded machine) spin there for seconds: seen with 210 of
        // 300 rl.request threads in it and 166 timers armed, beside builds on 2 CPUs.
        let armed = times.count { $0.armed != nil }
        if !placement.runsOnPool, armed < started {
            let clause =
                hasFrames ? stacks?.threads.whereClause(in: "_CFRunLoopGet", calledFrom: "\(TimeoutRunLoop.self).run") : nil
            return .notSeen(
                "only \(armed) of \(started) run loops armed their timers"
                    + (clause.map { ": \($0) (Foundation's run-loop table lock)" } ?? ""))
        }
        // Run loops that waited for a pool thread: not armed within `patience` of their caller
        // starting (or never).
        let queued =
            placement.runsOnPool
            ? times.count { t in t.started.map { s in t.armed.map { $0 - s > patience } ?? true } ?? false } : 0
        let behind = queued > 0 ? ", \(queued) run loops queued behind them for a pool thread" : ""
        guard caller.blocks else {
            guard placement.runsOnPool else {
                return .seen(
                    "all \(count) \(caller.phrase) started, up to \(RequestMetrics.inFlightPeak(times)) waiting at once"
                )
            }
            // Async callers hold no thread, but on Linux their tasks run on the same default
            // pool: the run loops hold its threads, so tasks neither start nor resume.
            let clause =
                hasFrames
                ? stacks?.threads.whereClause(in: "CFRunLoopRun", calledFrom: "\(TimeoutRunLoop.self).run") : nil
            return .when(
                runLoopsPeak > 0 && (!hasFrames || clause != nil),
                "\(started) of \(count) async callers started; up to \(runLoopsPeak) run loops held pool threads at once"
                    + (clause.map { "; stacks: \($0)" } ?? " (counts)"),
                otherwise: "\(started) async callers started, but no run loop was seen holding a pool thread")
        }
        if placement.runsOnPool && queued == 0 {
            return .notSeen(
                "every run loop started within one timeout of its caller: the callers did not hold the pool")
        }
        let from = "\(RequestClient.self).callBlocking"
        // Stacks whose frames could not be named (no time left on a loaded machine) say
        // nothing either way; the counts below still do.
        if let stacks = stacks?.threads, hasFrames,
            stacks.canTell(in: Callers.semaphoreWaitFrame, calledFrom: from)
        {
            guard let clause = stacks.whereClause(in: Callers.semaphoreWaitFrame, calledFrom: from) else {
                return .notSeen(
                    "\(started) callers started, but the stacks show none waiting in a semaphore called from \(from)")
            }
            return .seen("\(started) of \(count) callers started\(behind); stacks: \(clause)")
        }
        let blocked = RequestMetrics.inFlightPeak(times)
        return .when(
            blocked > 0,
            "\(started) of \(count) callers started, up to \(blocked) blocked in a semaphore at once (counts)\(behind)",
            otherwise: "\(started) callers started, none seen blocked")
    }
}

/// The contract's metrics from the requests' times.
enum RequestMetrics {
    /// A request still waiting when the trial ended (at `endedAt`) waited at least until then:
    /// it enters the percentiles as a lower bound, counted in `.censored` (the table prints
    /// "≥"), so a deadlocked variant still says how long its callers waited. `control(from, to)`
    /// is how long a same-moment control was held up over an interval (`StallWatch`): the
    /// machine's part, which `lateness.excess.*` and `wall.control_delay_s` take off (or the
    /// firing thread's own run-queue wait, when larger). A timer's lateness has two such parts:
    /// what the control lost while the timer was being armed, as far as that pushed the timer's
    /// due time back (a timer armed "one timeout from now" on a thread that a stall kept from
    /// starting), and what it lost from that due time to the firing.
    static func compute(
        _ times: [RequestTimes], timeout: TimeInterval, endedAt: TimeInterval,
        control: (TimeInterval, TimeInterval) -> TimeInterval = { _, _ in 0 }
    ) -> Metrics {
        var m = Metrics()
        let done = times.count { $0.woke != nil }
        m[RunloopMetric.total] = Double(times.count)
        m[RunloopMetric.completed] = Double(done)
        m[RunloopMetric.fired] = Double(times.count { $0.fired != nil })
        // "Saw its timeout": the caller woke within twice the timeout of starting to wait.
        m[RunloopMetric.timely] = Double(
            times.count { t in t.started.flatMap { s in t.woke.map { $0 - s <= 2 * timeout } } == true })
        if let first = times.compactMap(\.started).min() {
            // First request started to last done; for an unfinished run, to its end.
            let end = done == times.count ? (times.compactMap(\.woke).max() ?? endedAt) : endedAt
            m[RunloopMetric.wallS] = end - first
            m[RunloopMetric.wallControlDelayS] = control(first, end)
            // From the last timer armed to the end, and what the control lost in that stretch:
            // the time after the set-up, net of the machine (blocked-callers-throttle).
            if let lastArmed = times.compactMap(\.armed).max() {
                m[RunloopMetric.armedLastS] = lastArmed - first
                m[RunloopMetric.afterArmedControlDelayS] = control(lastArmed, max(lastArmed, end))
            }
        }
        var waits: [Double] = [], lateness: [Double] = [], excess: [Double] = [], arms: [Double] = []
        for t in times {
            guard let s = t.started else { continue }
            waits.append((t.woke ?? endedAt) - s)
            let due = s + timeout, end = t.fired ?? max(due, endedAt), armedDue = max(due, t.due ?? due)
            lateness.append(end - due)
            let arming = min(armedDue - due, t.armed.map { control(s, $0) } ?? 0)
            let lost = max(arming + control(armedDue, max(armedDue, end)), t.runQueueWait ?? 0)
            excess.append(max(0, end - due - lost))
            if let a = t.armed { arms.append(a - s) }
        }
        let started = times.filter { $0.started != nil }
        m.summarize(
            waits, p50: RunloopMetric.waitP50S, p99: RunloopMetric.waitP99S, max: RunloopMetric.waitMaxS,
            censored: (RunloopMetric.waitCensored, started.count { $0.woke == nil }))
        m.summarize(
            lateness, scale: 1000, p50: RunloopMetric.latenessP50Ms, p99: RunloopMetric.latenessP99Ms,
            max: RunloopMetric.latenessMaxMs,
            censored: (RunloopMetric.latenessCensored, started.count { $0.fired == nil }))
        m.summarize(
            excess, scale: 1000, p50: RunloopMetric.latenessExcessP50Ms, p99: RunloopMetric.latenessExcessP99Ms,
            max: RunloopMetric.latenessExcessMaxMs)
        m.summarize(arms, p50: RunloopMetric.armDelayP50S, max: RunloopMetric.armDelayMaxS)
        // How long callers sat in their queue before running at all (a lower bound for the
        // ones that never ran).
        m.summarize(
            times.compactMap { t in t.submitted.map { (t.started ?? endedAt) - $0 } },
            max: RunloopMetric.callerDelayMaxS,
            censored: (RunloopMetric.callerDelayCensored, times.count { $0.submitted != nil && $0.started == nil }))
        m[RunloopMetric.callersStarted] = Double(started.count)
        m[RunloopMetric.inFlightPeak] = Double(inFlightPeak(times))
        return m
    }

    /// The most callers waiting at once (started, not yet woken).
    static func inFlightPeak(_ times: [RequestTimes]) -> Int {
        var edges: [(TimeInterval, Int)] = []
        for t in times { if let s = t.started { edges += [(s, 1)] + (t.woke.map { [($0, -1)] } ?? []) } }
        edges.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        var now = 0, peak = 0
        for (_, d) in edges { now += d; peak = max(peak, now) }
        return peak
    }
}

/// Fixed decimal places for series points, so JSON stays readable.
func rounded(_ value: Double, places: Int) -> Double {
    let scale = pow(10, Double(places))
    return (value * scale).rounded() / scale
}
