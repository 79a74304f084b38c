import LabHarness

/// How each finding of exp-runloop is judged from what its variants measured. Each verdict
/// quotes the figures it was decided on; a timing is judged beyond a same-moment control
/// (`StallWatch`) or as a ratio between variants of the same run.
enum RunloopVerdicts {
    /// "On time": within this many milliseconds of the deadline beyond what a control thread
    /// in the same process was held up at that moment. Timers behind a starved pool are late
    /// by seconds; a thread of its own fires within a few milliseconds.
    static let onTimeLimitMs = 50.0

    static func onTime(excessP99: Double) -> Bool { excessP99 <= onTimeLimitMs }

    /// "beyond a same-moment control: p99 3 ms (limit 50 ms; the control was held up 40 ms at worst)".
    static func beyondControl(_ v: VariantReport, excessP99: Double) -> String {
        let stall = v[StallWatch.worstMetric].map { "; the control was held up \(Format.milliseconds($0)) at worst" } ?? ""
        return "beyond a same-moment control p99 \(Format.milliseconds(excessP99)) (limit \(Format.milliseconds(onTimeLimitMs))\(stall))"
    }

    /// The frame every semaphore wait of this experiment blocks in, as the stacks name it. The
    /// Swift overlay's `DispatchSemaphore.wait` tail-calls libdispatch, so its own frame never
    /// shows; libdispatch's slow path does (`_dispatch_semaphore_wait_slow`).
    static let semaphoreWaitFrame = "_dispatch_semaphore_wait"

    /// Where the stacks taken at the kill put the waiting threads: "; stacks: 6 threads
    /// (lab.caller) wait in _dispatch_semaphore_wait called from RequestClient.callBlocking".
    /// Empty when no stacks were taken (the variant's evidence says why); said plainly when the
    /// stacks do not show the wait the finding explains.
    static func stackClause(_ v: VariantReport, waitingIn caller: String) -> String {
        guard let stacks = v.stacks, !stacks.isEmpty else { return "" }
        if let clause = v.whereClause(in: semaphoreWaitFrame, calledFrom: caller) { return "; stacks: \(clause)" }
        return "; the stacks show no thread waiting in a semaphore called from \(caller)"
    }

    /// The premise of the global-queue claim is callers that hold pool threads while they wait.
    /// Thread callers wait on threads of their own, so the run loops get pool threads as the
    /// pool grows and some timers fire on time: how many depends on the pool's growth against
    /// the request count, which is no evidence for or against the claim.
    static func callersLeaveThePoolFree(_ options: ParsedOptions) -> String? {
        let parameters = RunloopParameters(reading: options)
        let caller = parameters.caller
        guard caller == .thread else {
            // Where the kernel states its pool's limit (Darwin), fewer callers than that each
            // get a thread at once, and nothing is left waiting for one.
            return caller == .global ? DispatchPoolSize.current.tooFewToExhaust(parameters.tasks, what: "callers") : nil
        }
        return "this run's callers were \(caller.phrase), which leave the pool free; the claim is about callers that block on the global queue (--caller global)"
    }

    static func globalQueueMissesTimeouts(_ inputs: FindingInputs) -> Verdict {
        let v = inputs[RunloopVariant.globalQueue]
        let timeout = inputs.parameters(RunloopParameters.self).timeout
        let total = v[RunloopMetric.total] ?? 0
        let timely = v[RunloopMetric.timely] ?? 0
        var text = "\(Format.count(timely)) of \(Format.count(total)) saw their \(Format.seconds(timeout)) timeout within \(Format.seconds(2 * timeout))"
        if v.outcome == .deadlock {
            text += ": after \(Format.seconds(RunloopParameters.deadlockAfter * timeout)) without a completion, \(Format.count(v[RunloopMetric.callersStarted] ?? 0)) callers had started and \(Format.count(v[RunloopMetric.fired] ?? 0)) timers fired (deadlock, \(Format.count(v[RunloopMetric.threadsPeak] ?? 0)) threads)"
            text += stackClause(v, waitingIn: "\(RequestClient.self).callBlocking")
        } else if let late = v[RunloopMetric.latenessP50Ms] {
            let bound = (v[RunloopMetric.latenessCensored] ?? 0) > 0 ? "at least " : ""
            text += "; the timers fired \(bound)\(Format.seconds(late / 1000)) late (p50), \(bound)\(Format.seconds((v[RunloopMetric.latenessMaxMs] ?? 0) / 1000)) at worst"
        }
        // Wide margin: at most one request in ten on time.
        return Verdict(total > 0 && timely <= 0.1 * total, text)
    }

    static func dedicatedThreadHonorsTimeouts(_ inputs: FindingInputs) -> Verdict {
        let v = inputs[RunloopVariant.dedicatedThread]
        let total = v[RunloopMetric.total] ?? 0, fired = v[RunloopMetric.fired] ?? 0
        guard let p99 = v[RunloopMetric.latenessP99Ms], let excess = v[RunloopMetric.latenessExcessP99Ms] else {
            return Verdict(false, "dedicated-thread ended \(v.outcome) with no timer fired: \(v.evidence ?? "")")
        }
        let text = "\(Format.count(fired)) of \(Format.count(total)) timers fired, p99 \(Format.milliseconds(p99)) late (max \(Format.milliseconds(v[RunloopMetric.latenessMaxMs] ?? 0))), "
            + RunloopVerdicts.beyondControl(v, excessP99: excess)
            + ", on up to \(Format.count(v[RunloopMetric.runloopThreadsPeak] ?? 0)) run-loop threads at once"
        return Verdict(fired == total && RunloopVerdicts.onTime(excessP99: excess), text)
    }

    static func sharedThreadScales(_ inputs: FindingInputs) -> Verdict {
        let v = inputs[RunloopVariant.sharedThread]
        let total = v[RunloopMetric.total] ?? 0, fired = v[RunloopMetric.fired] ?? 0
        let loops = v[RunloopMetric.runloopThreadsPeak] ?? 0
        guard let p99 = v[RunloopMetric.latenessP99Ms], let excess = v[RunloopMetric.latenessExcessP99Ms] else {
            return Verdict(false, "shared-thread ended \(v.outcome) with no timer fired: \(v.evidence ?? "")")
        }
        var text = "\(Format.count(fired)) of \(Format.count(total)) timers fired on \(Format.count(loops)) run-loop thread, p99 \(Format.milliseconds(p99)) late, "
            + RunloopVerdicts.beyondControl(v, excessP99: excess)
        // The thread-per-request cost is clearest without blocked callers throttling it.
        for other in [RunloopVariant.dedicatedThreadAsync, .dedicatedThread] {
            if let theirs = inputs.ran(other)?[RunloopMetric.runloopThreadsPeak] {
                text += " (\(other.rawValue) needed \(Format.count(theirs)) at once)"
                break
            }
        }
        return Verdict(fired == total && RunloopVerdicts.onTime(excessP99: excess) && loops == 1, text)
    }

    static func blockedCallersThrottle(_ inputs: FindingInputs) -> Verdict {
        let timeout = inputs.parameters(RunloopParameters.self).timeout
        let caller = inputs.parameters(RunloopParameters.self).caller
        guard caller == .global else {
            return Verdict(false, "this run's callers were \(caller.phrase); the finding compares global-queue callers with async ones (run with --caller global)")
        }
        var blockedText: [String] = [], freeText: [String] = []
        var typicalLate = 0.0, worstLate = 0.0, typicalExcess = 0.0, worstExcess = 0.0, mostInFlight = 0.0, total = 0.0
        var holds = true
        for placement in [RunloopVariant.dedicatedThread, .sharedThread] {
            guard let blocked = inputs.ran(placement), let free = inputs.ran(placement.withAsyncCallers) else { continue }
            total = blocked[RunloopMetric.total] ?? 0
            let blockedWall = blocked[RunloopMetric.wallS] ?? .nan, freeWall = free[RunloopMetric.wallS] ?? .nan
            // The async run's wall time without what machine stalls took from it (a control
            // thread in the same process was held up that long): stalls neither make it look
            // slower than one timeout nor shrink the stretch.
            let freeNet = freeWall - (free[RunloopMetric.wallControlDelayS] ?? 0)
            let p50 = blocked[RunloopMetric.latenessExcessP50Ms] ?? .infinity, worst = blocked[RunloopMetric.latenessExcessMaxMs] ?? .infinity
            // "Every timer on time" as far as the total is concerned: the typical timer is on
            // time beyond its same-moment control, and even the latest one explains less than
            // a tenth of the stretch.
            let onTime = blocked[RunloopMetric.fired] == total && RunloopVerdicts.onTime(excessP99: p50) && worst / 1000 < (blockedWall - freeNet) / 10
            // "Stretch": at least twice the async run (it is about twenty times at the seed's size).
            let stretched = blockedWall >= 2 * freeNet
            let aboutOneTimeout = free[RunloopMetric.completed] == free[RunloopMetric.total] && freeNet <= 1.5 * timeout
            holds = holds && onTime && stretched && aboutOneTimeout
            typicalLate = max(typicalLate, blocked[RunloopMetric.latenessP50Ms] ?? .infinity)
            worstLate = max(worstLate, blocked[RunloopMetric.latenessMaxMs] ?? .infinity)
            typicalExcess = max(typicalExcess, p50)
            worstExcess = max(worstExcess, worst)
            mostInFlight = max(mostInFlight, blocked[RunloopMetric.inFlightPeak] ?? 0)
            blockedText.append("\(Format.seconds(blockedWall)) (\(placement.rawValue))")
            let stall = freeWall - freeNet >= 0.005 ? " (\(Format.seconds(freeNet)) without the \(Format.seconds(freeWall - freeNet)) a control thread lost to the machine)" : ""
            freeText.append("\(Format.seconds(freeWall)) = \(Format.decimal(freeWall / timeout, places: 2)) × timeout\(stall)")
        }
        let text = "\(Format.count(total)) global-queue callers: \(blockedText.joined(separator: ", ")) with timers on time (p50 ≤ \(Format.milliseconds(typicalLate)), worst \(Format.milliseconds(worstLate)) late; beyond a same-moment control p50 ≤ \(Format.milliseconds(typicalExcess)), worst \(Format.milliseconds(worstExcess))) but at most \(Format.count(mostInFlight)) in flight; async callers: \(freeText.joined(separator: ", "))"
        return Verdict(holds, text)
    }

    static func noSourceSpins(_ inputs: FindingInputs) -> Verdict {
        let spin = inputs[RunloopVariant.spinNoSource], calm = inputs[RunloopVariant.spinWithSource]
        guard let spinCPU = spin[RunloopMetric.cpuPerWall], let calmCPU = calm[RunloopMetric.cpuPerWall] else {
            return Verdict(false, "CPU time was not measured: \(spin.evidence ?? "") / \(calm.evidence ?? "")")
        }
        // On a loaded machine a spinning thread gets only its share of a core; the time it
        // spent runnable (on a CPU or waiting for one) shows it would have used all of it.
        let runnable = spin[RunloopMetric.runnablePerWall]
        let busy = spinCPU >= 0.5 || (runnable ?? 0) >= 0.9
        let quiet = calmCPU <= 0.05
        var text = "no source: \(SpinWrapper.passes(Int(spin[RunloopMetric.passes] ?? 0))), \(Format.decimal(spinCPU, places: 2)) CPU-s per s"
        if let runnable { text += " (runnable \(Format.decimal(runnable * 100, places: 0)) % of the time)" }
        text += "; SocketPort: \(SpinWrapper.passes(Int(calm[RunloopMetric.passes] ?? 0))), \(Format.decimal(calmCPU, places: 3)) CPU-s per s"
        return Verdict(busy && quiet, text)
    }

    static func semaphoreSyncDeadlocksMain(_ inputs: FindingInputs) -> Verdict {
        let sem = inputs[RunloopVariant.syncSemaphoreMain], loop = inputs[RunloopVariant.syncRunloopMain]
        let steps = Format.count(sem[RunloopMetric.steps] ?? 0)
        let semText = sem.outcome == .deadlock
            ? "semaphore: deadlock at step \(steps) of \(MainThreadWrapper.steps) (the completion sat on the main queue; killed after \(Format.seconds(sem[RunloopMetric.wallS] ?? .nan)))"
                + stackClause(sem, waitingIn: "\(MainThreadWrapper.self).semaphore")
            : "semaphore: \(sem.outcome) (\(sem.evidence ?? ""))"
        let loopText = loop.outcome == .completed
            ? "run loop: returned in \(Format.seconds(loop[RunloopMetric.wallS] ?? .nan)) after \(SpinWrapper.passes(Int(loop[RunloopMetric.passes] ?? 0)))"
            : "run loop: \(loop.outcome) (\(loop.evidence ?? ""))"
        return Verdict(sem.outcome == .deadlock && loop.outcome == .completed, "\(semText); \(loopText)")
    }

    static func runUntilDateReleasesAtGuard(_ inputs: FindingInputs) -> Verdict {
        let global = inputs[RunloopVariant.runUntilDate], thread = inputs[RunloopVariant.runUntilDateThread]
        let promised = thread[RunloopMetric.guardPromisedS] ?? .nan
        // Released at the guard date: not before it (less a scheduling tick), and not more than
        // half a second after it beyond what a same-moment control thread was held up.
        let releasedAfter = thread[RunloopMetric.untilDateReleasedAfterS]
        let atGuard = releasedAfter.map { $0 >= promised - 0.05 } == true && (thread[RunloopMetric.untilDateExcessS] ?? .infinity) <= 0.5
        let runHeld = thread[RunloopMetric.runReleased] == 0 && (thread[RunloopMetric.runHeldS] ?? 0) >= promised
        let threadText = "thread callers: both woke at their timeouts; run(until:) "
            + (releasedAfter.map { "released its thread \(Format.seconds($0)) after arming" } ?? "never released its thread")
            + " (timeout + guard: \(Format.seconds(promised))), run() "
            + (runHeld ? "still held its thread after \(Format.seconds(thread[RunloopMetric.runHeldS] ?? 0))" : "returned or was not watched long enough")
        // The global half holds only where the callers were global-queue blocks (`--caller`).
        let callers = inputs.parameters(RunloopParameters.self).caller
        var globalOK = true
        let globalText: String
        if callers == .global {
            // The first run-loop blocks may get a thread before the callers fill the pool; the
            // rest never start. The same margin as global-queue: at most one in ten.
            let total = global[RunloopMetric.total] ?? 0
            let started = global[RunloopMetric.runloopThreadsPeak] ?? .infinity
            globalOK = global.outcome == .deadlock && total > 0 && started <= 0.1 * total
            globalText = global.outcome == .deadlock
                ? "global callers: deadlock, \(Format.count(started)) of \(Format.count(total)) run-loop blocks ever started; the guard of the other \(Format.count(total - started)) is inside a block that never ran"
                : "global callers: \(global.outcome) (\(global.evidence ?? ""))"
        } else {
            globalText = "run-until-date ran with \(callers.phrase) (--caller), so the global half is not measured here"
        }
        return Verdict(atGuard && runHeld && thread.outcome == .completed && globalOK, "\(threadText); \(globalText)")
    }

    static func operationQueueCallersHoldThePool(_ inputs: FindingInputs) -> Verdict {
        let v = inputs[RunloopVariant.globalQueueOperationQueue]
        let total = v[RunloopMetric.total] ?? 0, timely = v[RunloopMetric.timely] ?? 0
        let started = v[RunloopMetric.runloopThreadsPeak] ?? 0
        let timeout = inputs.parameters(RunloopParameters.self).timeout
        // The same wide margin as global-queue: at most one request in ten on time.
        return Verdict(total > 0 && timely <= 0.1 * total,
                       "\(Format.count(timely)) of \(Format.count(total)) saw their \(Format.seconds(timeout)) timeout within \(Format.seconds(2 * timeout)); \(v.outcome): \(Format.count(v[RunloopMetric.callersStarted] ?? 0)) operations started and blocked their pool threads, \(Format.count(started)) run-loop blocks ever ran")
    }

    static func linuxTimerInitFiresImmediately(_ inputs: FindingInputs) -> Verdict {
        let v = inputs[RunloopVariant.timerInit]
        let interval = v[RunloopMetric.intervalMs] ?? .nan
        let early = v[RunloopMetric.firstFireTimeIntervalInitMs] ?? .nan
        // What a machine stall added to that first fire is taken off (a control thread in the
        // same process was held up as long), so a stall cannot make "at once" look late.
        let earlyNet = v[RunloopMetric.firstFireTimeIntervalInitExcessMs] ?? early
        let fire = v[RunloopMetric.firstFireFireDateInitMs] ?? .nan
        let scheduled = v[RunloopMetric.firstFireScheduledMs] ?? .nan
        let text = "a \(Format.milliseconds(interval)) timer first fired after \(Format.milliseconds(early)) with Timer(timeInterval:)\(early - earlyNet >= 5 ? " (\(Format.milliseconds(earlyNet)) beyond a same-moment control)" : ""), \(Format.milliseconds(fire)) with Timer(fire:), \(Format.milliseconds(scheduled)) with scheduledTimer"
        // "At once" against "after the interval": half the interval tells them apart with the widest margin.
        return Verdict(earlyNet < 0.5 * interval && fire >= 0.9 * interval && scheduled >= 0.9 * interval, text)
    }
}
