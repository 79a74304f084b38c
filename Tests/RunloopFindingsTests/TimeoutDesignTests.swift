import FindingsTestSupport
import Foundation
import LabHarness
import RunloopExperiment
import Synchronization
import XCTest

/// The timeout designs behind `deadline-heap`, `dispatch-timer`, `task-sleep` and
/// `shared-thread`, at a small count: every request that times out is woken exactly once and
/// never before its deadline, and a request that completes first is not woken by its timeout.
///
/// Nothing here judges how late a timeout fired: on a loaded two-core machine any absolute
/// limit can be crossed by a stall. "Never early" is exact (the monotonic clock), "exactly
/// once" is a count, and every wait has a budget far beyond a stall.
final class TimeoutDesignTests: XCTestCase {
    let count = 200
    let timeout = 0.2

    /// Per request: how many times its timeout fired, and the first fire time (NaN before).
    final class Fires: Sendable {
        let state: Mutex<(counts: [Int], firstAt: [Double])>
        init(count: Int) { state = Mutex((Array(repeating: 0, count: count), Array(repeating: .nan, count: count))) }
        func record(_ i: Int, at t: Seconds) {
            state.withLock { s in
                s.counts[i] += 1
                if s.firstAt[i].isNaN { s.firstAt[i] = t }
            }
        }
        var counts: [Int] { state.withLock { $0.counts } }
        var firstAt: [Double] { state.withLock { $0.firstAt } }
    }

    /// Waits until `expected` timeouts fired (10 s at most), then a little longer so a second
    /// firing of any of them would be seen.
    static func waitForFires(_ fires: Fires, expected: Int, timeout: Seconds) {
        let limit = MonotonicClock.now() + 10
        while fires.counts.reduce(0, +) < expected, MonotonicClock.now() < limit { MonotonicClock.sleep(for: 0.01) }
        MonotonicClock.sleep(for: timeout)
    }

    /// What one callback design did with `count` timeouts: their deadlines, which were
    /// cancelled and whether each cancel was taken, how many times each fired and when first,
    /// and which fired ones a cancel still took.
    struct CallbackRun: Sendable {
        var name: String
        var deadlines: [Double]
        var cancelled: [Int]
        var refusedCancels: [Int]
        var counts: [Int]
        var firstAt: [Double]
        var cancellableAfterFiring: [Int]
    }

    /// Arms `count` timeouts with deadlines spread over 50 ms, cancels every third right away
    /// when `cancelsEveryThird`, and records what fired.
    static func runCallbackDesign<D: CallbackTimeoutDesign>(
        _ design: D, cancelsEveryThird: Bool, count: Int, timeout: Seconds
    ) -> CallbackRun {
        defer { design.stop() }
        let fires = Fires(count: count)
        let base = MonotonicClock.now() + timeout
        let deadlines = (0..<count).map { base + Double($0 % 50) / 1000 }
        var tokens: [D.Token] = []
        for i in 0..<count { tokens.append(design.arm(at: deadlines[i]) { at in fires.record(i, at: at) }) }
        let cancelled = cancelsEveryThird ? (0..<count).filter { $0 % 3 == 0 } : []
        let refusedCancels = cancelled.filter { !design.cancel(tokens[$0]) }
        waitForFires(fires, expected: count - cancelled.count, timeout: timeout)
        let kept = (0..<count).filter { !cancelled.contains($0) }
        return CallbackRun(
            name: String(describing: D.self), deadlines: deadlines, cancelled: cancelled,
            refusedCancels: refusedCancels, counts: fires.counts, firstAt: fires.firstAt,
            cancellableAfterFiring: kept.filter { design.cancel(tokens[$0]) })
    }

    /// Checks what `run` recorded: every cancel taken before its deadline, no cancelled
    /// timeout fired, every other one fired exactly once and never early, and none of those
    /// could be cancelled after firing.
    func check(_ run: CallbackRun, file: StaticString = #filePath, line: UInt = #line) {
        let (name, counts, firstAt, deadlines) = (run.name, run.counts, run.firstAt, run.deadlines)
        for i in run.refusedCancels {
            XCTFail("\(name): request \(i) cancelled before its deadline", file: file, line: line)
        }
        let kept = counts.indices.filter { !run.cancelled.contains($0) }
        let firedAfterCancel = run.cancelled.filter { counts[$0] > 0 }
        let notOnce = kept.filter { counts[$0] != 1 }
        let early = kept.filter { firstAt[$0] < deadlines[$0] }
        XCTAssertEqual(
            firedAfterCancel, [], "\(name): requests that completed early must not be woken by their timeout",
            file: file, line: line)
        XCTAssertEqual(
            notOnce, [], "\(name): requests not woken exactly once (counts \(notOnce.prefix(5).map { counts[$0] }))",
            file: file, line: line)
        XCTAssertEqual(
            early, [],
            "\(name): requests woken before their deadline, by \(early.prefix(5).map { deadlines[$0] - firstAt[$0] }) s",
            file: file, line: line)
        XCTAssertEqual(
            run.cancellableAfterFiring, [], "\(name): a fired timeout cannot be cancelled", file: file, line: line)
    }

    /// The four callback-design checks: the heap and the dispatch timer, with every timeout
    /// firing and with every third cancelled. Each run mostly waits out its 200 ms timeouts,
    /// and what it checks are counts and the monotonic order, which sharing the cores does
    /// not change: the first test that reads one starts all four side by side, on threads of
    /// their own, and each test checks its own (0.45 s each, one after another before).
    enum CallbackCase: CaseIterable, Sendable {
        case heapFiresAll, heapCancelsSome, timerFiresAll, timerCancelsSome

        func run(count: Int, timeout: Seconds) -> CallbackRun? {
            switch self {
            case .heapFiresAll, .heapCancelsSome:
                guard let heap = DeadlineHeapTimeouts.start(realtime: true) else { return nil }
                return runCallbackDesign(
                    heap, cancelsEveryThird: self == .heapCancelsSome, count: count, timeout: timeout)
            case .timerFiresAll, .timerCancelsSome:
                return runCallbackDesign(
                    DispatchTimerTimeouts(), cancelsEveryThird: self == .timerCancelsSome, count: count,
                    timeout: timeout)
            }
        }
    }

    private static let callbackRuns = SideBySide<CallbackCase, CallbackRun?>.OnFirstRead()

    func callbackRun(_ which: CallbackCase) throws -> CallbackRun {
        let (count, timeout) = (count, timeout)
        let run = try Self.callbackRuns.value(which, of: CallbackCase.allCases) {
            $0.run(count: count, timeout: timeout)
        }
        return try XCTUnwrap(run, "\(which): the design did not start")
    }

    func testDeadlineHeapFiresEveryTimeoutOnceAndNeverEarly() throws {
        check(try callbackRun(.heapFiresAll))
    }

    func testDeadlineHeapNeverFiresATimeoutCancelledByAnEarlyCompletion() throws {
        check(try callbackRun(.heapCancelsSome))
    }

    func testDispatchTimerFiresEveryTimeoutOnceAndNeverEarly() throws {
        check(try callbackRun(.timerFiresAll))
    }

    func testDispatchTimerNeverFiresATimeoutCancelledByAnEarlyCompletion() throws {
        check(try callbackRun(.timerCancelsSome))
    }

    /// One trial of every design, side by side on threads of their own (what these tests check
    /// are counts and the monotonic order, which sharing the cores does not change).
    func trials(
        of designs: [TimeoutDesignName] = TimeoutDesignName.allCases,
        _ run: @escaping @Sendable (TimeoutDesignName) -> TimeoutTrial.Result?
    ) -> [(TimeoutDesignName, TimeoutTrial.Result?)] {
        let results = Mutex<[TimeoutDesignName: TimeoutTrial.Result]>([:])
        let done = DispatchSemaphore(value: 0)
        for design in designs {
            Thread.detachNewThread {
                if let result = run(design) { results.withLock { $0[design] = result } }
                done.signal()
            }
        }
        for _ in designs { _ = done.wait(timeout: .now() + 60) }
        return designs.map { design in (design, results.withLock { $0[design] }) }
    }

    /// The whole trial, as a sweep point runs it: async callers, every request timing out.
    func checkTrial(
        _ design: TimeoutDesignName, _ result: TimeoutTrial.Result?, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let result = try XCTUnwrap(result, "\(design.rawValue) did not start", file: file, line: line)
        let m = result.metrics
        XCTAssertTrue(
            result.finished, "\(design.rawValue): every request ended within the budget", file: file, line: line)
        XCTAssertEqual(
            result.started, count, "\(design.rawValue): every caller started before its deadline", file: file,
            line: line)
        // A timeout counts from the request's issue, not from its caller's start, which a loaded
        // machine delays: a deadline taken at the start would spread the requests out. The 0.1 µs
        // margin keeps such a deadline (`started + timeout`, less `timeout` again, which rounds)
        // from passing; a caller's start comes later than that after its issue in every run here.
        let takenAtStart = zip(result.deadlines, result.startedAt).filter { !($0 - timeout < $1 - 1e-7) }
        XCTAssertEqual(
            takenAtStart.count, 0, "\(design.rawValue): every deadline taken before its caller started",
            file: file, line: line)
        XCTAssertEqual(
            m[RunloopMetric.fired], Double(count), "\(design.rawValue): every request was woken by its timeout",
            file: file, line: line)
        XCTAssertEqual(
            m[RunloopMetric.early], 0, "\(design.rawValue): no request was woken before its deadline", file: file,
            line: line)
        XCTAssertEqual(result.firedAt.filter { !$0.isNaN }.count, count, file: file, line: line)
        for metric in [
            RunloopMetric.latenessP50Ms, RunloopMetric.latenessP99Ms, RunloopMetric.latenessMaxMs,
            RunloopMetric.wallPerTimeout,
            RunloopMetric.issueS, RunloopMetric.threadsAdded, RunloopMetric.cpuS,
        ] {
            XCTAssertNotNil(m[metric], "\(design.rawValue): \(metric) measured", file: file, line: line)
        }
        XCTAssertGreaterThanOrEqual(
            m[RunloopMetric.wallPerTimeout] ?? 0, 1, "\(design.rawValue): the last request waited its whole timeout",
            file: file, line: line)
    }

    func testEveryDesignWakesEachOfTwoHundredRequestsOnceAndNeverEarly() throws {
        let (count, timeout) = (count, timeout)
        for (design, result) in trials({ TimeoutTrial.run($0, requests: count, timeout: timeout, budget: 20) }) {
            try checkTrial(design, result)
        }
    }

    /// Half the requests complete after 10 ms, long before a 1.5 s timeout (only a stall of
    /// most of that could reorder them): those end as completed, the rest time out, none early.
    func testRequestsThatCompleteFirstAreNotWokenByTheirTimeout() throws {
        let count = count
        for (design, result) in trials({
            TimeoutTrial.run($0, requests: count, timeout: 1.5, completeAfter: { $0 % 2 == 0 ? 0.01 : nil }, budget: 20)
        }) {
            let result = try XCTUnwrap(result, design.rawValue)
            XCTAssertTrue(result.finished, design.rawValue)
            XCTAssertEqual(
                result.metrics[RunloopMetric.completedFirst], Double(count / 2),
                "\(design.rawValue): early completions won their race")
            XCTAssertEqual(
                result.metrics[RunloopMetric.fired], Double(count / 2), "\(design.rawValue): the others timed out")
            XCTAssertEqual(result.metrics[RunloopMetric.early], 0, design.rawValue)
        }
    }

    /// The mechanism the sweep's findings name: shared-thread adds a run-loop timer for every
    /// request, deadline-heap re-sets its one timer per firing pass, far fewer times.
    /// The two trials run side by side: what is checked is a count of timers armed.
    func testSharedThreadArmsATimerPerRequestAndTheHeapOneTimer() throws {
        let (count, timeout) = (count, timeout)
        let results = trials(of: [.sharedThread, .deadlineHeap]) {
            TimeoutTrial.run($0, requests: count, timeout: timeout, budget: 20)
        }
        let shared = try XCTUnwrap(results[0].1, "shared-thread did not start")
        XCTAssertEqual(shared.metrics[RunloopMetric.timersArmed], Double(count))
        let heap = try XCTUnwrap(results[1].1, "deadline-heap did not start")
        XCTAssertLessThan(heap.metrics[RunloopMetric.timersArmed] ?? .infinity, Double(count))
    }

    /// Threads the design created are counted, the callers' are not: the run-loop designs add
    /// their own thread, `task-sleep` has none of its own.
    func testThreadsAddedCountTheDesignsOwnThreadsOnly() throws {
        let heap = try XCTUnwrap(TimeoutTrial.run(.deadlineHeap, requests: count, timeout: timeout, budget: 20))
        XCTAssertTrue(heap.addedThreadNames.contains("rl.heap"), "the heap's run-loop thread: \(heap.addedThreadNames)")
        XCTAssertEqual(heap.metrics[RunloopMetric.threadsAdded], Double(heap.addedThreadNames.count))
        let sleep = try XCTUnwrap(TimeoutTrial.run(.taskSleep, requests: count, timeout: timeout, budget: 20))
        XCTAssertFalse(sleep.addedThreadNames.contains("rl.heap"))
        XCTAssertLessThan(
            sleep.metrics[RunloopMetric.threadsAdded] ?? 99, heap.metrics[RunloopMetric.threadsAdded] ?? 0,
            "task-sleep starts no thread of its own: \(sleep.addedThreadNames) vs \(heap.addedThreadNames)")
    }

    /// The two run-loop designs ask for real-time priority for their one thread, so a sweep
    /// compares their bookkeeping and not their priority; the trial reports what the scheduler
    /// answered, the same answer a thread of the test process gets. The designs without a thread
    /// of their own report nothing.
    func testTheRunLoopDesignsReportThePriorityTheirThreadGot() throws {
        let expected = Mutex<RealtimePriority.Grant?>(nil)
        let done = DispatchSemaphore(value: 0)
        NamedThread.start("probe") {
            let answer = RealtimePriority.requestForCurrentThread()
            expected.withLock { $0 = answer }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success)
        let probe = try XCTUnwrap(expected.withLock { $0 })
        XCTAssertEqual(TimeoutDesignName.allCases.filter(\.runsOnRealtimeThread), [.sharedThread, .deadlineHeap])
        // One trial of each design, side by side: the answer is the scheduler's to each thread.
        for (design, result) in trials({ TimeoutTrial.run($0, requests: 20, timeout: 0.05, budget: 20) }) {
            let result = try XCTUnwrap(result, "\(design.rawValue) did not start")
            if design.runsOnRealtimeThread {
                XCTAssertEqual(
                    result.threadPriority?.granted, probe.isGranted,
                    "\(design.rawValue): \(String(describing: result.threadPriority)) vs \(probe)")
            } else {
                XCTAssertNil(result.threadPriority, "\(design.rawValue) has no thread of its own")
            }
        }
    }

    func testPeakResidentMemoryIsReadFromTheStatusHighWaterMark() throws {
        XCTAssertEqual(
            ProcessMemory.parseStatusField("VmHWM:", in: "Name:\tx\nVmPeak:\t  999 kB\nVmHWM:\t   12345 kB\n"), 12345)
        XCTAssertNil(ProcessMemory.parseStatusField("VmHWM:", in: "Name:\tx\n"))
        if PlatformInfo.current.isLinux {  // the high-water mark is read from /proc/self/status on Linux
            let peak = try XCTUnwrap(ProcessMemory.peakResidentMB())
            let now = try XCTUnwrap(ProcessMemory.currentResidentMB())
            XCTAssertGreaterThanOrEqual(peak, now, "the high-water mark is at least what is resident now")
            XCTAssertGreaterThan(peak, 1)
        }
    }

    func testKernelThreadIDNamesAThreadTheCensusLists() throws {
        try XCTSkipIf(KernelThreadID.current() == nil, "this platform gives no kernel thread id")
        let mine = try XCTUnwrap(KernelThreadID.current())
        XCTAssertEqual(KernelThreadID.current(), mine, "the same thread keeps its id")
        XCTAssertTrue(ThreadCensus.threads().map(\.id).contains(mine))
        let other = Mutex<Int?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            other.withLock { $0 = KernelThreadID.current() }; done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertNotEqual(try XCTUnwrap(other.withLock { $0 }), mine)
    }
}
