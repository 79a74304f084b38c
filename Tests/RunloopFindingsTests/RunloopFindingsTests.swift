import Foundation
import LabHarness
import LabHarnessXCTest
import RunloopExperiment
import Synchronization
import XCTest

/// What happens to a request that blocks its caller until a timeout timer on some run loop
/// fires, depending on where that run loop lives and who waits for it; and three run-loop
/// pitfalls around it. One test per finding of exp-runloop, scaled down (tens of requests,
/// 200 ms timeouts) so the file runs in seconds.
///
/// Every variant runs in a child process of `exp-runloop` (threads blocked on purpose die
/// with it). Assertions are on orderings, ratios and wide margins: they hold on a loaded
/// two-core machine. Where a finding is about timer lateness, one stall of the whole machine
/// (this VM stalls for 30 to 60 ms now and then under load) lands on every timer due at that
/// moment, so those tests run five trials one after another and judge the median of each
/// metric, which is what the harness reports for repeated trials: one or two stalled trials
/// cannot decide the verdict.
final class RunloopFindingsTests: XCTestCase {
    let timeout = 0.2

    /// Runs exp-runloop with `arguments` plus the scaled-down request count and timeout (also
    /// the pitfalls' request and interval).
    func run(_ arguments: [String], requests: Int = 30, timeout: Double? = nil) throws -> ExperimentReport {
        try ExperimentRunner.run(runloopExperiment,
                                 arguments: ["--tasks", String(requests), "--timeout", String(timeout ?? self.timeout),
                                             "--request", String(timeout ?? self.timeout), "--interval", String(timeout ?? self.timeout)] + arguments,
                                 executable: BuiltProducts.executable("exp-runloop"))
    }

    /// Several trials of each variant; metrics are medians over the trials.
    let threeTrials = ["--trials", "3"]
    let fiveTrialsInTurn = ["--trials", "5", "--jobs", "1"]

    func variant(_ report: ExperimentReport, _ name: RunloopVariant, file: StaticString = #filePath, line: UInt = #line) throws -> VariantReport {
        try XCTUnwrap(report.variant(name), "\(name.rawValue) did not run", file: file, line: line)
    }

    func assertReproduced(_ report: ExperimentReport, _ id: String, file: StaticString = #filePath, line: UInt = #line) {
        guard let finding = report.finding(id) else { return XCTFail("\(id) was not evaluated", file: file, line: line) }
        XCTAssertTrue(finding.applicable, "\(id) does not apply here", file: file, line: line)
        XCTAssertTrue(finding.reproduced, "\(id): \(finding.summary)", file: file, line: line)
    }

    /// Twenty callers block on the global queue, and each queues its run loop on the same
    /// queue, behind the callers that came after it. The pool (about three threads, one more
    /// per second) is busy with callers that wait for run loops that wait for the pool: no
    /// timer is armed, no caller wakes, and after 3 × timeout without a completion the trial is
    /// a deadlock. The seed's "double guard" (`run(until:)`) lives inside the block that never
    /// starts, and an `OperationQueue` runs its operations on the same pool: neither helps.
    /// The global-queue claim is about callers that hold pool threads while they wait. With
    /// thread callers the run loops get pool threads as the pool grows, and how many timers are
    /// on time depends on that growth against the request count: no evidence either way. So the
    /// claim's mechanism is not seen in such a run: it is not judged (never reproduced), and a
    /// run that judged nothing else exits 1.
    func testTheGlobalQueueClaimIsNotJudgedWithThreadCallers() throws {
        let report = try run(["--caller", "thread", "--variant", "global-queue"], requests: 10)
        let finding = try XCTUnwrap(report.finding("runloop.global-queue-misses-timeouts"))
        XCTAssertEqual(finding.judged, false, finding.summary)
        XCTAssertFalse(finding.reproduced, finding.summary)
        XCTAssertTrue(finding.summary.contains("leave the pool free"), finding.summary)
        XCTAssertFalse(report.passed)
    }

    func testGlobalQueueMissesTimeouts() throws {
        let report = try run(["--variant", "global-queue,run-until-date,operation-queue"], requests: 20)
        assertReproduced(report, "runloop.global-queue-misses-timeouts")
        for name in [RunloopVariant.globalQueue, .runUntilDate, .operationQueue] {
            let v = try variant(report, name)
            XCTAssertEqual(v.outcome, .deadlock, "\(name): \(v.evidence ?? "")")
            XCTAssertLessThanOrEqual(v["timely"] ?? 99, 2, "\(name): at most one request in ten saw its timeout in time")
            XCTAssertLessThan(v["callers.started"] ?? 99, 20, "\(name): the pool did not even start every caller")
            // The callers that did start were still waiting when the trial gave up, at least
            // 3 × timeout after they started (their waits are reported as lower bounds), unless
            // one squeezed through first: on a loaded machine a thread the pool added can reach
            // an operation's run loop before the deadlock is declared.
            // With two cores the pool starts two callers, so one that squeezed through is half
            // of them: judge the callers still waiting (at least one), not the median of all.
            XCTAssertEqual((v["wait.censored"] ?? 0) + (v["completed"] ?? 0), v["callers.started"], name.rawValue)
            XCTAssertGreaterThan(v["wait.censored"] ?? 0, 0, "\(name.rawValue): a caller was still waiting")
            XCTAssertGreaterThanOrEqual(v["wait.max_s"] ?? 0, 2 * timeout, name.rawValue)
        }
    }

    /// A thread of its own per run loop does not wait for anything: each timer is armed as
    /// soon as its request starts and fires within a few milliseconds of its deadline. The
    /// price is a thread per request in flight.
    func testDedicatedThreadHonorsTimeouts() throws {
        let report = try run(["--variant", "dedicated-thread", "--caller", "thread"] + fiveTrialsInTurn)
        assertReproduced(report, "runloop.dedicated-thread-honors-timeouts")
        let v = try variant(report, .dedicatedThread)
        XCTAssertEqual(v.outcome, .completed, v.evidence ?? "")
        XCTAssertEqual(v["fired"], 30)
        // Judged beyond a same-moment control thread: a stall of the whole machine delays the
        // control as much as the timers, and is taken off.
        XCTAssertLessThanOrEqual(v["lateness.excess.p99_ms"] ?? .infinity, 50)
        XCTAssertLessThanOrEqual(v["lateness.excess.p99_ms"] ?? .infinity, v["lateness.p99_ms"] ?? 0, "the excess is a part of the raw lateness")
        XCTAssertGreaterThan(v["runloop_threads.peak"] ?? 0, 10, "about one run-loop thread per request in flight")
        XCTAssertEqual(v["runloops.unreturned"], 0, "CFRunLoopRun returns once the timer stops it")
    }

    /// A stall of the whole process is the machine's, not the placement's: the child is
    /// stopped (SIGSTOP) for 300 ms while its timers come due, so every timer fires late by up
    /// to that much, and the verdict still holds, because the control thread in the same
    /// process was held up just as long at the same moment. (With the old absolute rule, "p99
    /// within 50 ms", this run was NOT REPRODUCED: 113 and 148 ms late.)
    func testAStallOfTheWholeProcessDoesNotFlipTheTimingVerdict() throws {
        let result = Mutex<ExperimentReport?>(nil)
        let done = DispatchSemaphore(value: 0)
        let executable = try BuiltProducts.executable("exp-runloop")
        Thread.detachNewThread {
            let arguments = ["--variant", "dedicated-thread", "--caller", "async", "--tasks", "30", "--timeout", "1"]
            result.withLock { $0 = try? ExperimentRunner.run(runloopExperiment, arguments: arguments, executable: executable) }
            done.signal()
        }
        // The child appears within a moment; its timers come due about 1 s after it starts.
        var child: ProcessTable.Entry?
        let giveUp = MonotonicClock.now() + 5
        while child == nil, MonotonicClock.now() < giveUp {
            child = ProcessTable.children().first { $0.commandLine.contains("--child-variant dedicated-thread") }
            if child == nil { MonotonicClock.sleep(for: 0.005) }
        }
        let pid = try XCTUnwrap(child?.pid, "the child trial did not start")
        MonotonicClock.sleep(for: 0.85)
        kill(pid, SIGSTOP)
        MonotonicClock.sleep(for: 0.3)
        kill(pid, SIGCONT)
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        let report = try XCTUnwrap(result.withLock { $0 })
        let v = try variant(report, .dedicatedThread)
        XCTAssertGreaterThanOrEqual(v[StallWatch.worstMetric] ?? 0, 250, "the control saw the stop")
        assertReproduced(report, "runloop.dedicated-thread-honors-timeouts")
        XCTAssertLessThanOrEqual(v["lateness.excess.p99_ms"] ?? .infinity, 50)
    }

    /// One long-lived thread, kept alive by a port, runs every request's timer: the requests
    /// add timers to its run loop instead of starting run loops of their own. All timers fire
    /// on time and the run-loop thread count stays at one, where a thread per request needs one
    /// per request in flight.
    func testSharedThreadScales() throws {
        let report = try run(["--variant", "shared-thread,dedicated-thread", "--caller", "async"] + fiveTrialsInTurn)
        assertReproduced(report, "runloop.shared-thread-scales")
        let shared = try variant(report, .sharedThread), dedicated = try variant(report, .dedicatedThread)
        XCTAssertEqual(shared.outcome, .completed, shared.evidence ?? "")
        XCTAssertEqual(shared["runloop_threads.peak"], 1)
        XCTAssertGreaterThanOrEqual(dedicated["runloop_threads.peak"] ?? 0, 10 * (shared["runloop_threads.peak"] ?? 1))
        XCTAssertLessThan(shared["threads.peak"] ?? .infinity, dedicated["threads.peak"] ?? 0,
                          "the whole process needs fewer threads")
    }

    /// The callers are the other half of the story. Blocked on the global queue, they hold its
    /// threads while they wait, so the pool lets only a few requests in flight at a time and
    /// grows by about one thread a second: the total stretches to many timeouts even though
    /// every timer fires on time. Callers that await instead of blocking finish everything in
    /// about one timeout, with the same run loops.
    func testBlockedCallersThrottle() throws {
        let report = try run(["--variant", "dedicated-thread,dedicated-thread@async,shared-thread,shared-thread@async",
                              "--jobs", "2"] + threeTrials, requests: 20)
        assertReproduced(report, "runloop.blocked-callers-throttle")
        for placement in [RunloopVariant.dedicatedThread, .sharedThread] {
            let blocked = try variant(report, placement), free = try variant(report, placement.withAsyncCallers)
            let blockedWall = try XCTUnwrap(blocked["wall_s"]), freeWall = try XCTUnwrap(free["wall_s"])
            let freeNet = freeWall - (free["wall.control_delay_s"] ?? 0)
            XCTAssertGreaterThanOrEqual(blockedWall, 3 * freeNet, "\(placement): blocked callers stretch the run")
            XCTAssertLessThanOrEqual(freeNet, 1.5 * timeout, "\(placement): async callers take about one timeout, without what machine stalls took")
            XCTAssertLessThan(blocked["in_flight.peak"] ?? 99, 20, "\(placement): the pool let only some callers in at once")
            XCTAssertEqual(free["in_flight.peak"], 20, "\(placement): every async caller waited at once")
        }
    }

    /// `run(mode:before:)` on a thread whose run loop has no source returns at once, so a
    /// `while !done` around it spins for as long as the request takes: hundreds of thousands
    /// of passes, a core kept busy (on a loaded machine the thread gets only its share of a
    /// core, but it is runnable all the time). A `SocketPort` on the run loop makes each pass
    /// sleep until something happens: one pass, no CPU.
    func testNoSourceSpins() throws {
        let report = try run(["--variant", "spin-no-source,spin-with-source"])
        assertReproduced(report, "runloop.no-source-spins")
        let spin = try variant(report, .spinNoSource), calm = try variant(report, .spinWithSource)
        XCTAssertEqual(spin.outcome, "busy-loop")
        XCTAssertEqual(calm.outcome, .completed)
        XCTAssertGreaterThan(spin["passes"] ?? 0, 1000 * (calm["passes"] ?? .infinity))
        XCTAssertLessThanOrEqual(calm["cpu_per_wall"] ?? .infinity, 0.05)
        XCTAssertGreaterThan(spin["cpu_per_wall"] ?? 0, 10 * max(calm["cpu_per_wall"] ?? 1, 0.001))
    }

    /// A synchronous wrapper on the main thread whose completion is delivered on the main
    /// queue: blocking the main thread on a semaphore means the main queue never runs, so the
    /// completion that would signal the semaphore waits for the thread that waits for it. The
    /// request itself finished (step 1 of 3); nothing after it happened. Running the main run
    /// loop until the completion has run lets the main queue drain, and the wrapper returns.
    func testSemaphoreSyncDeadlocksMain() throws {
        let report = try run(["--variant", "sync-semaphore-main,sync-runloop-main"])
        assertReproduced(report, "runloop.semaphore-sync-deadlocks-main")
        let semaphore = try variant(report, .syncSemaphoreMain), runLoop = try variant(report, .syncRunloopMain)
        XCTAssertEqual(semaphore.outcome, .deadlock)
        XCTAssertEqual(semaphore["steps"], 1, "the request finished and queued its completion, which never ran")
        XCTAssertEqual(runLoop.outcome, .completed)
        XCTAssertEqual(runLoop["steps"], 3)
        XCTAssertLessThan(runLoop["passes"] ?? .infinity, 100, "the main run loop slept: it always has a source")
    }

    /// `Timer(timeInterval:repeats:block:)` on Linux sets its first fire date to now, so it
    /// fires at once; `Timer(fire:interval:repeats:block:)` and `Timer.scheduledTimer` wait
    /// their interval. A timeout built on the first constructor times out immediately.
    func testLinuxTimerInitFiresImmediately() throws {
        let report = try run(["--variant", "timer-init"], timeout: 0.5)
        let finding = try XCTUnwrap(report.finding("runloop.linux-timer-init-fires-immediately"))
        let v = try variant(report, .timerInit)
        let interval = try XCTUnwrap(v["interval_ms"])
        XCTAssertGreaterThanOrEqual(v["first_fire.fire_date_init_ms"] ?? 0, 0.9 * interval)
        XCTAssertGreaterThanOrEqual(v["first_fire.scheduled_ms"] ?? 0, 0.9 * interval)
        guard PlatformInfo.current.isLinux else { return XCTAssertFalse(finding.applicable) }
        assertReproduced(report, finding.id)
        XCTAssertEqual(v.outcome, .firesEarly)
        XCTAssertLessThan(v["first_fire.time_interval_init.excess_ms"] ?? .infinity, 0.5 * interval,
                          "beyond what a machine stall added, judged by a same-moment control")
    }

    /// Not one of the lab's findings but a trap in the seed's own code: `RunLoop.run()` calls
    /// `run(mode:before:)` again and again, and `CFRunLoopStop` ends only the current pass. With
    /// a port keeping the run loop non-empty (the seed adds one), `run()` never returns: every
    /// request leaves its thread running an empty run loop. Callers still wake, from the timer.
    func testLiteralRunLeaksItsThreads() throws {
        let report = try run(["--variant", "literal-run", "--caller", "async"], requests: 10)
        let v = try variant(report, .literalRun)
        XCTAssertEqual(v.outcome, .leaked, v.evidence ?? "")
        XCTAssertEqual(v["completed"], 10, "every caller woke")
        XCTAssertEqual(v["runloops.unreturned"], 10, "no run() returned")
    }

    /// The contract a workshop relies on: `--quick` runs every variant of the default plan,
    /// including the async comparison, evaluates every finding, and reports the metrics and
    /// series the lab runner charts. (The lateness findings have their own tests above, with
    /// trials; one quick run of everything side by side is not where to judge milliseconds.)
    func testQuickRunCoversEveryVariantAndFinding() throws {
        let report = try ExperimentRunner.run(runloopExperiment, arguments: ["--quick"],
                                              executable: BuiltProducts.executable("exp-runloop"))
        XCTAssertEqual(report.variants.map(\.name), [
            "global-queue", "run-until-date", "operation-queue", "global-queue@operation-queue", "run-until-date@thread",
            "dedicated-thread", "shared-thread",
            "dedicated-thread@async", "shared-thread@async", "spin-no-source", "spin-with-source",
            "sync-semaphore-main", "sync-runloop-main", "timer-init",
        ])
        // Every variant's claim, then every finding.
        XCTAssertEqual(report.findings.map(\.id), runloopExperiment.variants.compactMap(\.claim?.id)
                       + runloopExperiment.findings.map(\.id))
        for id in ["runloop.global-queue-misses-timeouts", "runloop.no-source-spins",
                   "runloop.semaphore-sync-deadlocks-main", "runloop.linux-timer-init-fires-immediately"] {
            let finding = try XCTUnwrap(report.finding(id))
            XCTAssertTrue(finding.reproduced || !finding.applicable, "\(id): \(finding.summary)")
        }
        let dedicated = try variant(report, .dedicatedThread)
        XCTAssertEqual(dedicated.outcome, .completed, dedicated.evidence ?? "")
        XCTAssertEqual(dedicated.series?["lateness_ms"]?.count, 40, "one point per timer that fired")
        XCTAssertFalse(dedicated.series?["threads"]?.isEmpty ?? true)
        for name in ["total", "completed", "wall_s", "wait.p50_s", "wait.p99_s", "lateness.p50_ms",
                     "lateness.p99_ms", "lateness.max_ms", "threads.peak"] {
            XCTAssertNotNil(dedicated[name], "dedicated-thread reports \(name)")
        }
    }
}
