import LabHarness

/// How exp-runloop's cross-variant findings are judged. Each verdict quotes its figures and
/// names its mechanism's evidence, so a symptom with another cause (a thread limit, a machine
/// that gave the trial no CPU) is not judged; a timing is judged beyond a same-moment control or
/// as a ratio within one run. Every figure judged against is a `Threshold` here, named once.
enum RunloopVerdicts {
    /// "On time": within this of the deadline beyond a same-moment control. Timers behind a
    /// starved pool are late by seconds; a thread of its own fires within a few milliseconds.
    static let onTimeThreshold = Threshold("on time", 50, "ms")
    /// Blocked callers stretch the total at least this many times the async run's (about 20×
    /// at the article's size), whose requests all finish within `aboutOneTimeout` (net of stalls).
    static let stretch = Threshold("stretch", 2, "×"), aboutOneTimeout = Threshold("about one timeout", 1.5, "×")
    /// "Timers on time" for a stretched total: the latest timer (beyond its control) explains
    /// less than this share of the stretch, so the stretch is the callers', not the timers'.
    static let latestTimerShare = Threshold("latest timer's share of the stretch", 10, "%")
    /// A sleeping loop uses at most this much CPU per wall second (a busy one: `SpinWrapper.busy`).
    static let quietCPU = Threshold("quiet CPU", 0.05, "s/s")
    /// "Returns at once": a loop without a source passes this many times as often as with a port.
    static let returnsAtOnce = Threshold("returns at once", 100, "×")
    /// The async run's set-up (its run loops armed late) is taken off its total when it is at
    /// least this share of a timeout.
    static let setUpShare = Threshold("set-up judged apart", 5, "%")
    /// Released "at the guard date": not earlier than a scheduling tick before it, not later
    /// than `guardLate` after it beyond a same-moment control.
    static let guardEarly = Threshold("guard early", 0.05, "s"), guardLate = Threshold("guard late", 0.5, "s")
    /// Under global callers at most this share of the run-loop blocks starts (the first ones
    /// may get a thread before the callers fill the pool).
    static let fewStarted = Threshold("run-loop blocks started", 10, "%")

    static func onTime(excessP99: Double) -> Bool { excessP99 <= onTimeThreshold.value }

    /// The variant's own mechanism (set by its body), or why there is none.
    static func mechanism(_ v: VariantReport) -> Evidence {
        v.mechanism ?? .notSeen("\(v.name) recorded no mechanism (\(v.outcome))")
    }

    /// Whether every timer of `v` fired on time beyond its same-moment control, and the
    /// sentence that says so; `nil` when no timer fired.
    static func timers(_ v: VariantReport) -> (onTime: Bool, text: String)? {
        let total = v[RunloopMetric.total] ?? 0, fired = v[RunloopMetric.fired] ?? 0
        guard let p99 = v[RunloopMetric.latenessP99Ms], let excess = v[RunloopMetric.latenessExcessP99Ms] else {
            return nil
        }
        let ms = Format.milliseconds, n = Format.count, maxLate = v[RunloopMetric.latenessMaxMs] ?? 0
        let stall = v[Metrics.controlStallMax].map { " (the control was held up \(ms($0)) at worst)" } ?? ""
        let text =
            "\(n(fired)) of \(n(total)) timers fired, p99 \(ms(p99)) late (max \(ms(maxLate))), beyond a same-moment control p99 \(ms(excess))\(stall)"
        return (fired == total && onTime(excessP99: excess), text)
    }

    /// The on-time verdict of a thread placement, `loops` saying how many run-loop threads it took.
    static func onTimeVerdict(_ v: VariantReport, also: Bool = true, _ loops: String) -> Verdict {
        guard let timers = timers(v) else {
            return .notJudged("\(v.name) ended \(v.outcome) with no timer fired: \(v.evidence ?? "")")
        }
        return Verdict(symptom: timers.onTime && also, mechanism: mechanism(v), timers.text + loops)
    }

    static func dedicatedThreadHonorsTimeouts(_ inputs: FindingInputs) -> Verdict {
        let v = inputs[RunloopVariant.dedicatedThread]
        return onTimeVerdict(
            v, ", on up to \(Format.count(v[RunloopMetric.runloopThreadsPeak] ?? 0)) run-loop threads at once")
    }

    static func sharedThreadScales(_ inputs: FindingInputs) -> Verdict {
        // The threads that armed the requests' timers, each counted once: measured on the thread.
        let v = inputs[RunloopVariant.sharedThread], loops = v[RunloopMetric.runloopThreadsUsed] ?? .infinity
        // The thread-per-request cost is clearest without blocked callers throttling it.
        let other =
            [RunloopVariant.dedicatedThreadAsync, .dedicatedThread].lazy.compactMap { o in
                inputs.ran(o)?[RunloopMetric.runloopThreadsPeak].map {
                    " (\(o.rawValue) needed \(Format.count($0)) at once)"
                }
            }.first ?? ""
        return onTimeVerdict(v, also: loops == 1, ", on \(Format.count(loops)) run-loop thread\(other)")
    }

    /// The global-queue claim's premise: callers that wait on the pool's threads. Global and
    /// operation-queue callers hold one each; async callers wait for one to resume on, which the
    /// run loops hold (the claim's mechanism then is run loops holding the pool). Thread callers
    /// wait on threads of their own and leave the pool to the run loops: a run with them says
    /// nothing about the claim, either way.
    static func callersLeaveThePoolFree(_ options: ParsedOptions) -> String? {
        let caller = options.choice("caller", as: CallerKind.self)
        guard caller == .thread else { return nil }
        return "this run's callers are \(caller.phrase), which wait on threads of their own and leave the pool free; "
            + "the claim is about callers that wait on the global queue's threads (--caller global, async or "
            + "operation-queue)"
    }

    /// blocked-callers-throttle's premise: the variants it compares with async callers have
    /// global-queue callers.
    static func callersAreNotGlobal(_ options: ParsedOptions) -> String? {
        let caller = options.choice("caller", as: CallerKind.self)
        guard caller != .global else { return nil }
        return "this run's callers are \(caller.phrase); the finding compares global-queue callers with async ones "
            + "(--caller global)"
    }

    static func blockedCallersThrottle(_ inputs: FindingInputs) -> Verdict {
        let p = inputs.parameters(RunloopParameters.self)
        var parts: [String] = [], queued: [Evidence] = [], holds = true
        for placement in [RunloopVariant.dedicatedThread, .sharedThread] {
            guard let blocked = inputs.ran(placement), let free = inputs.ran(placement.withAsyncCallers) else {
                continue
            }
            let total = blocked[RunloopMetric.total] ?? 0, freeWall = free[RunloopMetric.wallS] ?? .nan
            // Each run's wall time less what its same-moment control lost to the machine: stalls
            // neither make the async run look slower than one timeout nor make the stretch.
            let controlLoss = free[RunloopMetric.wallControlDelayS] ?? 0
            let freeNet = freeWall - controlLoss
            let blockedWall = blocked[RunloopMetric.wallS] ?? .nan,
                blockedLoss = blocked[RunloopMetric.wallControlDelayS] ?? 0
            let blockedNet = blockedWall - blockedLoss
            // "About one timeout" is judged from the last run loop armed: making 300 run-loop
            // threads at once is the placement's set-up, which a loaded machine stretches far
            // beyond one thread's stall (1.2 s beside `stress --cpu 2`, 31 ms quiet).
            // Judged on that figure, and said, when it takes off `setUpShare` of a timeout or more;
            // otherwise on `freeNet`, so the figure judged is always the one printed.
            // With the last arming's time and what the control lost after it, the stretch after
            // the set-up is taken net of the machine; a stall after arming (0.5 s beside a set-up
            // of 1.2 s, itself partly stalled) then no longer reads as a slow wait.
            let setUp = free[RunloopMetric.armedLastS] ?? free[RunloopMetric.armDelayMaxS] ?? 0
            let fromArmed =
                free[RunloopMetric.afterArmedControlDelayS].map { freeWall - setUp - $0 }
                ?? freeWall - max(controlLoss, setUp)
            let armedLate = (freeNet - fromArmed) * 100 >= setUpShare.value * p.timeout
            let afterSetUp = armedLate ? fromArmed : freeNet
            let p50 = blocked[RunloopMetric.latenessExcessP50Ms] ?? .infinity,
                worst = blocked[RunloopMetric.latenessExcessMaxMs] ?? .infinity
            // "Every timer on time" for the total: the typical timer is on time beyond its
            // control, and even the latest explains less than a tenth of the stretch.
            let onTime =
                blocked[RunloopMetric.fired] == total && onTime(excessP99: p50)
                && worst / 1000 < (blockedNet - freeNet) * latestTimerShare.value / 100
            holds =
                holds && onTime && blockedNet >= stretch.value * freeNet
                && free[RunloopMetric.completed] == free[RunloopMetric.total]
                && afterSetUp <= aboutOneTimeout.value * p.timeout
            // The mechanism: blocked callers queued for pool threads (fewer in flight at once
            // than callers), while every async caller waited at once.
            let inFlight = blocked[RunloopMetric.inFlightPeak] ?? 0,
                freeInFlight = free[RunloopMetric.inFlightPeak] ?? 0
            let name = placement.rawValue, n = Format.count, s = Format.seconds, ms = Format.milliseconds
            let lastQueued = s(blocked[RunloopMetric.callerDelayMaxS] ?? 0)
            let queuedText =
                "\(name): at most \(n(inFlight)) of \(n(total)) global-queue callers blocked at once (the rest queued for a pool thread, the last for \(lastQueued)), all \(n(freeInFlight)) async callers waiting at once"
            let notQueuedText =
                "\(name): \(n(inFlight)) of \(n(total)) global-queue callers in flight at once and \(n(freeInFlight)) async ones: the callers did not queue for the pool"
            let sawQueue = inFlight >= 1 && inFlight < total && freeInFlight == total
            queued.append(.when(sawQueue, queuedText, otherwise: notQueuedText))
            func net(_ figure: Double, _ lost: Double) -> String {
                lost >= 0.005 ? ", \(s(figure)) without the \(s(lost)) a control thread lost to the machine" : ""
            }
            let armed =
                armedLate
                ? ", \(s(afterSetUp)) after its last run loop was armed (\(s(setUp)) after its caller started)" : ""
            let perTimeout = Format.decimal(freeWall / p.timeout, places: 2)
            let blockedPart =
                "\(name): \(n(total)) global-queue callers took \(s(blockedWall))\(net(blockedNet, blockedLoss)) with timers on time (beyond a same-moment control p50 \(ms(p50)), worst \(ms(worst)))"
            parts.append(
                blockedPart + ", async callers \(s(freeWall)) = \(perTimeout) × timeout\(net(freeNet, controlLoss))\(armed)")
        }
        guard !queued.isEmpty else { return .notJudged("no placement ran with both kinds of callers") }
        return Verdict(symptom: holds, mechanism: .all(queued), parts.joined(separator: "; "))
    }

    static func noSourceSpins(_ inputs: FindingInputs) -> Verdict {
        let spin = inputs[RunloopVariant.spinNoSource], calm = inputs[RunloopVariant.spinWithSource]
        guard let spinCPU = spin[RunloopMetric.cpuPerWall], let calmCPU = calm[RunloopMetric.cpuPerWall] else {
            return .notJudged("CPU time was not measured: \(spin.evidence ?? "") / \(calm.evidence ?? "")")
        }
        let runnable = spin[RunloopMetric.runnablePerWall]
        let spins = SpinWrapper.busy(cpuPerWall: spinCPU, runnablePerWall: runnable), quiet = calmCPU <= quietCPU.value
        let spinPasses = spin[RunloopMetric.passes] ?? 0, calmPasses = calm[RunloopMetric.passes] ?? 0
        let text =
            "no source: \(Format.decimal(spinCPU, places: 2)) CPU-s per s"
            + (runnable.map { " (runnable \(Format.decimal($0 * 100, places: 0)) % of the time)" } ?? "")
            + "; SocketPort: \(Format.decimal(calmCPU, places: 3)) CPU-s per s"
        // The premise the claim rests on: the same wait ran its loop with no source, and with
        // the port, for the whole request, each pass counted. Whether the source-less loop
        // returned at once, pass after pass, is part of the claim, so a Foundation whose loop
        // sleeps without a source refutes it instead of leaving it unjudged.
        let counted = spin[RunloopMetric.passes] != nil && calm[RunloopMetric.passes] != nil
        let returnsAtOnceSeen = spinPasses >= returnsAtOnce.value * max(calmPasses, 1)
        let mechanism = Evidence.when(
            counted,
            "run(mode:before:) ran \(SpinWrapper.passes(Int(spinPasses))) without a source, \(SpinWrapper.passes(Int(calmPasses))) with the port, each for the whole request",
            otherwise: "the loops' passes were not counted")
        return Verdict(symptom: spins && quiet && returnsAtOnceSeen, mechanism: mechanism, text)
    }

    static func semaphoreSyncDeadlocksMain(_ inputs: FindingInputs) -> Verdict {
        let sem = inputs[RunloopVariant.syncSemaphoreMain], loop = inputs[RunloopVariant.syncRunloopMain]
        let steps = sem[RunloopMetric.steps] ?? 0
        let killedAfter = Format.seconds(sem[RunloopMetric.wallS] ?? .nan)
        let semText =
            sem.outcome == .deadlock
            ? "semaphore: deadlock at step \(Format.count(steps)) of \(MainThreadWrapper.steps) (killed after \(killedAfter))"
            : "semaphore: \(sem.outcome) (\(sem.evidence ?? ""))"
        let returnedIn = Format.seconds(loop[RunloopMetric.wallS] ?? .nan)
        let loopPasses = SpinWrapper.passes(Int(loop[RunloopMetric.passes] ?? 0))
        let loopText =
            loop.outcome == .completed
            ? "run loop: returned in \(returnedIn) after \(loopPasses)"
            : "run loop: \(loop.outcome) (\(loop.evidence ?? ""))"
        // The mechanism: the completion was queued for the main thread (step 1 done, step 2
        // never), and the main thread was seen waiting in the semaphore (stacks, where taken).
        let caller = "\(MainThreadWrapper.self).semaphore"
        let queued =
            steps == 1
            ? "the completion was queued on the main queue and never ran (step 1 of \(MainThreadWrapper.steps))" : nil
        let mechanism: Evidence
        if sem.outcome == .completed, steps >= 1 {
            // The premise held (the completion was queued on the main queue while the main
            // thread waited in the semaphore) and the wrapper returned all the same: a refutation.
            mechanism = .seen(
                "the completion was queued on the main queue while the main thread waited in the semaphore, "
                    + "and the wrapper returned (step \(Format.count(steps)) of \(MainThreadWrapper.steps))")
        } else if let stacks = sem.stacks, stacks.canTell(in: Callers.semaphoreWaitFrame, calledFrom: caller) {
            let clause = stacks.whereClause(in: Callers.semaphoreWaitFrame, calledFrom: caller)
            mechanism = .when(
                queued != nil && clause != nil, "\(queued ?? ""); stacks: \(clause ?? "")",
                otherwise: clause == nil
                    ? "the stacks show no thread waiting in a semaphore called from \(caller)"
                    : "the request did not finish (step \(Format.count(steps)))")
        } else {
            let why = sem.stacks == nil ? "no stacks on this platform" : "the stacks did not name the wait"
            mechanism = .when(
                queued != nil && sem.outcome == .deadlock, "\(queued ?? "") (counts; \(why))",
                otherwise: "the wrapper was not seen blocked after the request finished (step \(Format.count(steps)))")
        }
        return Verdict(
            symptom: sem.outcome == .deadlock && loop.outcome == .completed, mechanism: mechanism,
            "\(semText); \(loopText)")
    }

    static func runUntilDateReleasesAtGuard(_ inputs: FindingInputs) -> Verdict {
        let global = inputs[RunloopVariant.runUntilDate], thread = inputs[RunloopVariant.runUntilDateThread]
        let promised = thread[RunloopMetric.guardPromisedS] ?? .nan,
            releasedAfter = thread[RunloopMetric.untilDateReleasedAfterS]
        let atGuard =
            releasedAfter.map { $0 >= promised - guardEarly.value } == true
            && (thread[RunloopMetric.untilDateExcessS] ?? .infinity) <= guardLate.value
        let runHeld = thread[RunloopMetric.runReleased] == 0 && (thread[RunloopMetric.runHeldS] ?? 0) >= promised
        let threadText =
            "thread callers: run(until:) "
            + (releasedAfter.map { "released its thread \(Format.seconds($0)) after arming" }
                ?? "never released its thread")
            + " (timeout + guard: \(Format.seconds(promised))), run() "
            + (runHeld
                ? "still held its thread after \(Format.seconds(thread[RunloopMetric.runHeldS] ?? 0))"
                : "returned or was not watched long enough")
        // The thread half's mechanism: both timers fired and stopped their loops, both callers
        // woke: what follows is the run loop's own doing.
        var mechanism = Evidence.when(
            thread[RunloopMetric.fired] == 2 && thread[RunloopMetric.completed] == 2,
            "both timers fired (CFRunLoopStop called) and both thread callers woke",
            otherwise:
                "\(Format.count(thread[RunloopMetric.fired] ?? 0)) of 2 timers fired, \(Format.count(thread[RunloopMetric.completed] ?? 0)) of 2 callers woke"
        )
        // The global half holds only where the callers were global-queue blocks (`--caller`).
        let callers = inputs.parameters(RunloopParameters.self).caller
        var globalOK = true,
            globalText = "run-until-date ran with \(callers.phrase) (--caller), so the global half is not measured here"
        if callers == .global {
            // Ever started, not at once: blocks that ran their run loop and ended count too.
            let total = global[RunloopMetric.total] ?? 0, started = global[RunloopMetric.timersArmed] ?? .infinity
            globalOK = global.outcome == .deadlock && total > 0 && started * 100 <= fewStarted.value * total
            globalText =
                global.outcome == .deadlock
                ? "global callers: deadlock, \(Format.count(started)) of \(Format.count(total)) run-loop blocks ever started; the guard of the other \(Format.count(total - started)) is inside a block that never ran"
                : "global callers: \(global.outcome) (\(global.evidence ?? ""))"
            mechanism = .all([mechanism, RunloopVerdicts.mechanism(global)])
        }
        return Verdict(
            symptom: atGuard && runHeld && thread.outcome == .completed && globalOK, mechanism: mechanism,
            "\(threadText); \(globalText)")
    }

    static func linuxTimerInitFiresImmediately(_ inputs: FindingInputs) -> Verdict {
        let v = inputs[RunloopVariant.timerInit]
        let interval = v[RunloopMetric.intervalMs] ?? .nan, early = v[RunloopMetric.firstFireTimeIntervalInitMs] ?? .nan
        // What a machine stall added to that first fire is taken off (a control thread in the
        // same process was held up as long), so a stall cannot make "at once" look late.
        let earlyNet = v[RunloopMetric.firstFireTimeIntervalInitExcessMs] ?? early
        let fire = v[RunloopMetric.firstFireFireDateInitMs] ?? .nan,
            scheduled = v[RunloopMetric.firstFireScheduledMs] ?? .nan
        let ms = Format.milliseconds
        let net = early - earlyNet >= 5 ? " (\(ms(earlyNet)) beyond a same-moment control)" : ""
        let text =
            "a \(ms(interval)) timer first fired after \(ms(early)) with Timer(timeInterval:)\(net), \(ms(fire)) with Timer(fire:), \(ms(scheduled)) with scheduledTimer"
        // The mechanism: each constructor's timer was added to a running run loop and fired
        // there (its first fire was timed), beside a same-moment control.
        let mechanism = Evidence.when(
            [early, fire, scheduled].allSatisfy(\.isFinite) && v[Metrics.controlStallMax] != nil,
            "the three timers fired on their run loops, timed against a same-moment control",
            otherwise: "a timer's first fire was not timed: \(v.evidence ?? "")")
        let waited = [fire, scheduled].allSatisfy { TimerInit.waited($0, interval: interval) }
        if TimerInit.ambiguous(measured: early, net: earlyNet, interval: interval) {
            return .notJudged(
                text + ": a stall covered that first fire, so at once held back and a wait read the same",
                reason: .mechanismNotSeen)
        }
        let atOnce = TimerInit.firedAtOnce(measured: early, net: earlyNet, interval: interval)
        return Verdict(symptom: atOnce && waited, mechanism: mechanism, text)
    }
}
