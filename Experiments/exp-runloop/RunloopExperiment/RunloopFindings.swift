import LabHarness

/// The claims exp-runloop checks. Each verdict quotes the figures it was decided on.
let runloopFindings: [Finding] = [
    Finding("runloop.global-queue-misses-timeouts",
            claim: "with run loops on the global queue and callers blocked on it, requests see their timeout far too late or never",
            needs: ["global-queue"]) { inputs in
        let v = inputs["global-queue"]
        let timeout = inputs.options.double("timeout")
        let total = v["total"] ?? 0
        let timely = v["timely"] ?? 0
        var text = "\(Format.count(timely)) of \(Format.count(total)) saw their \(Format.seconds(timeout)) timeout within \(Format.seconds(2 * timeout))"
        if v.outcome == .deadlock {
            text += ": after \(Format.seconds(3 * timeout)) without a completion, \(Format.count(v["callers.started"] ?? 0)) callers had started and \(Format.count(v["fired"] ?? 0)) timers fired (deadlock, \(Format.count(v["threads.peak"] ?? 0)) threads)"
        } else if let late = v["lateness.p50_ms"] {
            let bound = (v["lateness.censored"] ?? 0) > 0 ? "at least " : ""
            text += "; the timers fired \(bound)\(Format.seconds(late / 1000)) late (p50), \(bound)\(Format.seconds((v["lateness.max_ms"] ?? 0) / 1000)) at worst"
        }
        // Wide margin: at most one request in ten on time.
        return Verdict(total > 0 && timely <= 0.1 * total, text)
    },

    Finding("runloop.dedicated-thread-honors-timeouts",
            claim: "with a thread per run loop every timer fires within 50 ms of its deadline (p99), beyond what a same-moment control thread was held up",
            needs: ["dedicated-thread"]) { inputs in
        let v = inputs["dedicated-thread"]
        let total = v["total"] ?? 0, fired = v["fired"] ?? 0
        guard let p99 = v["lateness.p99_ms"], let excess = v["lateness.excess.p99_ms"] else {
            return Verdict(false, "dedicated-thread ended \(v.outcome) with no timer fired: \(v.evidence ?? "")")
        }
        let text = "\(Format.count(fired)) of \(Format.count(total)) timers fired, p99 \(Format.milliseconds(p99)) late (max \(Format.milliseconds(v["lateness.max_ms"] ?? 0))), "
            + RunloopVerdicts.beyondControl(v, excessP99: excess)
            + ", on up to \(Format.count(v["runloop_threads.peak"] ?? 0)) run-loop threads at once"
        return Verdict(fired == total && RunloopVerdicts.onTime(excessP99: excess), text)
    },

    Finding("runloop.shared-thread-scales",
            claim: "one run loop thread serves all requests' timers on time (as above), adding one thread, not one per request",
            needs: ["shared-thread"]) { inputs in
        let v = inputs["shared-thread"]
        let total = v["total"] ?? 0, fired = v["fired"] ?? 0
        let loops = v["runloop_threads.peak"] ?? 0
        guard let p99 = v["lateness.p99_ms"], let excess = v["lateness.excess.p99_ms"] else {
            return Verdict(false, "shared-thread ended \(v.outcome) with no timer fired: \(v.evidence ?? "")")
        }
        var text = "\(Format.count(fired)) of \(Format.count(total)) timers fired on \(Format.count(loops)) run-loop thread, p99 \(Format.milliseconds(p99)) late, "
            + RunloopVerdicts.beyondControl(v, excessP99: excess)
        // The thread-per-request cost is clearest without blocked callers throttling it.
        for other in ["dedicated-thread@async", "dedicated-thread"] {
            if let theirs = inputs.variants[other]?["runloop_threads.peak"] {
                text += " (\(other) needed \(Format.count(theirs)) at once)"
                break
            }
        }
        return Verdict(fired == total && RunloopVerdicts.onTime(excessP99: excess) && loops == 1, text)
    },

    Finding("runloop.blocked-callers-throttle",
            claim: "callers blocked on the global queue stretch the total time even when every timer is on time; async callers finish all requests in about one timeout",
            needs: ["dedicated-thread", "dedicated-thread@async"]) { inputs in
        let timeout = inputs.options.double("timeout")
        let caller = callerKind(inputs.options)
        guard caller == .global else {
            return Verdict(false, "this run's callers were \(caller.phrase); the finding compares global-queue callers with async ones (run with --caller global)")
        }
        var blockedText: [String] = [], freeText: [String] = []
        var typicalLate = 0.0, worstLate = 0.0, typicalExcess = 0.0, worstExcess = 0.0, mostInFlight = 0.0, total = 0.0
        var holds = true
        for placement in ["dedicated-thread", "shared-thread"] {
            guard let blocked = inputs.variants[placement], let free = inputs.variants["\(placement)@async"] else { continue }
            total = blocked["total"] ?? 0
            let blockedWall = blocked["wall_s"] ?? .nan, freeWall = free["wall_s"] ?? .nan
            // The async run's wall time without what machine stalls took from it (a control
            // thread in the same process was held up that long): stalls neither make it look
            // slower than one timeout nor shrink the stretch.
            let freeNet = freeWall - (free["wall.control_delay_s"] ?? 0)
            let p50 = blocked["lateness.excess.p50_ms"] ?? .infinity, worst = blocked["lateness.excess.max_ms"] ?? .infinity
            // "Every timer on time" as far as the total is concerned: the typical timer is on
            // time beyond its same-moment control, and even the latest one explains less than
            // a tenth of the stretch.
            let onTime = blocked["fired"] == total && RunloopVerdicts.onTime(excessP99: p50) && worst / 1000 < (blockedWall - freeNet) / 10
            // "Stretch": at least twice the async run (it is about twenty times at the seed's size).
            let stretched = blockedWall >= 2 * freeNet
            let aboutOneTimeout = free["completed"] == free["total"] && freeNet <= 1.5 * timeout
            holds = holds && onTime && stretched && aboutOneTimeout
            typicalLate = max(typicalLate, blocked["lateness.p50_ms"] ?? .infinity)
            worstLate = max(worstLate, blocked["lateness.max_ms"] ?? .infinity)
            typicalExcess = max(typicalExcess, p50)
            worstExcess = max(worstExcess, worst)
            mostInFlight = max(mostInFlight, blocked["in_flight.peak"] ?? 0)
            blockedText.append("\(Format.seconds(blockedWall)) (\(placement))")
            let stall = freeWall - freeNet >= 0.005 ? " (\(Format.seconds(freeNet)) without the \(Format.seconds(freeWall - freeNet)) a control thread lost to the machine)" : ""
            freeText.append("\(Format.seconds(freeWall)) = \(Format.decimal(freeWall / timeout, places: 2)) × timeout\(stall)")
        }
        let text = "\(Format.count(total)) global-queue callers: \(blockedText.joined(separator: ", ")) with timers on time (p50 ≤ \(Format.milliseconds(typicalLate)), worst \(Format.milliseconds(worstLate)) late; beyond a same-moment control p50 ≤ \(Format.milliseconds(typicalExcess)), worst \(Format.milliseconds(worstExcess))) but at most \(Format.count(mostInFlight)) in flight; async callers: \(freeText.joined(separator: ", "))"
        return Verdict(holds, text)
    },

    Finding("runloop.no-source-spins",
            claim: "no source means a busy loop (CPU >= 0.5 s per wall second); a source brings it near zero",
            needs: ["spin-no-source", "spin-with-source"]) { inputs in
        let spin = inputs["spin-no-source"], calm = inputs["spin-with-source"]
        guard let spinCPU = spin["cpu_per_wall"], let calmCPU = calm["cpu_per_wall"] else {
            return Verdict(false, "CPU time was not measured: \(spin.evidence ?? "") / \(calm.evidence ?? "")")
        }
        // On a loaded machine a spinning thread gets only its share of a core; the time it
        // spent runnable (on a CPU or waiting for one) shows it would have used all of it.
        let runnable = spin["runnable_per_wall"]
        let busy = spinCPU >= 0.5 || (runnable ?? 0) >= 0.9
        let quiet = calmCPU <= 0.05
        var text = "no source: \(SpinWrapper.passes(Int(spin["passes"] ?? 0))), \(Format.decimal(spinCPU, places: 2)) CPU-s per s"
        if let runnable { text += " (runnable \(Format.decimal(runnable * 100, places: 0)) % of the time)" }
        text += "; SocketPort: \(SpinWrapper.passes(Int(calm["passes"] ?? 0))), \(Format.decimal(calmCPU, places: 3)) CPU-s per s"
        return Verdict(busy && quiet, text)
    },

    Finding("runloop.semaphore-sync-deadlocks-main",
            claim: "the semaphore wrapper on the main thread deadlocks; the run loop wrapper completes",
            needs: ["sync-semaphore-main", "sync-runloop-main"]) { inputs in
        let sem = inputs["sync-semaphore-main"], loop = inputs["sync-runloop-main"]
        let steps = Format.count(sem["steps"] ?? 0)
        let semText = sem.outcome == .deadlock
            ? "semaphore: deadlock at step \(steps) of \(MainThreadWrapper.steps) (the completion sat on the main queue; killed after \(Format.seconds(sem["wall_s"] ?? .nan)))"
            : "semaphore: \(sem.outcome) (\(sem.evidence ?? ""))"
        let loopText = loop.outcome == .completed
            ? "run loop: returned in \(Format.seconds(loop["wall_s"] ?? .nan)) after \(SpinWrapper.passes(Int(loop["passes"] ?? 0)))"
            : "run loop: \(loop.outcome) (\(loop.evidence ?? ""))"
        return Verdict(sem.outcome == .deadlock && loop.outcome == .completed, "\(semText); \(loopText)")
    },

    Finding("runloop.linux-timer-init-fires-immediately",
            claim: "Timer(timeInterval:repeats:block:) fires at once on Linux, not after its interval",
            needs: ["timer-init"], appliesWhen: { $0.isLinux },
            notApplicableReason: "Darwin's Foundation waits the interval") { inputs in
        let v = inputs["timer-init"]
        let interval = v["interval_ms"] ?? .nan
        let early = v["first_fire.time_interval_init_ms"] ?? .nan
        // What a machine stall added to that first fire is taken off (a control thread in the
        // same process was held up as long), so a stall cannot make "at once" look late.
        let earlyNet = v["first_fire.time_interval_init.excess_ms"] ?? early
        let fire = v["first_fire.fire_date_init_ms"] ?? .nan
        let scheduled = v["first_fire.scheduled_ms"] ?? .nan
        let text = "a \(Format.milliseconds(interval)) timer first fired after \(Format.milliseconds(early)) with Timer(timeInterval:)\(early - earlyNet >= 5 ? " (\(Format.milliseconds(earlyNet)) beyond a same-moment control)" : ""), \(Format.milliseconds(fire)) with Timer(fire:), \(Format.milliseconds(scheduled)) with scheduledTimer"
        // "At once" against "after the interval": half the interval tells them apart with the widest margin.
        return Verdict(earlyNet < 0.5 * interval && fire >= 0.9 * interval && scheduled >= 0.9 * interval, text)
    },
]

/// The timing rules of exp-runloop's findings, each judged against a same-moment control.
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
}
