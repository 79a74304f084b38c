import Foundation
@testable import LabHarness
import Synchronization
import XCTest

/// An assertion's budget is extended by what a thread of the harness's own lost meanwhile: a
/// stall of the whole machine is not the code's time. The rule first, with the control's
/// readings given; then real stalls, made by stopping this process with SIGSTOP from a shell.
final class StallAllowanceTests: XCTestCase {
    /// Runs the rule with `readings` as the control's successive answers and `metAfter` as the
    /// number of waits that end empty-handed; returns the outcome and each wait's length.
    private func extend(
        budget: Seconds, readings: [Seconds], metAfter: Int = .max
    ) -> (StallAllowance.Outcome, [Seconds]) {
        var waits: [Seconds] = [], next = 0
        let outcome = StallAllowance.extend(
            budget: budget,
            lost: {
                defer { next += 1 }
                return readings[min(next, readings.count - 1)]
            },
            { seconds in
                waits.append(seconds)
                return waits.count > metAfter
            })
        return (outcome, waits)
    }

    func testAMissedBudgetIsWaitedAgainForWhatTheMachineTook() {
        let (outcome, waits) = extend(budget: 0.2, readings: [0.3, 0.45, 0.45])
        XCTAssertEqual(waits.count, 3)
        XCTAssertEqual(waits[0], 0.2)
        XCTAssertEqual(waits[1], 0.3, accuracy: 1e-9, "the first reading")
        XCTAssertEqual(waits[2], 0.15, accuracy: 1e-9, "what was lost since")
        XCTAssertFalse(outcome.met)
        XCTAssertEqual(outcome.allowed, 0.45, accuracy: 1e-9)
    }

    func testWhatComesInTheAddedTimeNeedsTheAllowance() {
        let (outcome, _) = extend(budget: 0.2, readings: [0.3], metAfter: 1)
        XCTAssertEqual(outcome, StallAllowance.Outcome(met: true, allowed: 0.3, neededAllowance: true, lost: 0.3))
        let (inTime, waits) = extend(budget: 0.2, readings: [0.3], metAfter: 0)
        XCTAssertEqual(waits, [0.2])
        XCTAssertFalse(inTime.neededAllowance)
        XCTAssertEqual(inTime.allowed, 0)
    }

    func testScheduleNoiseIsNotWaitedFor() {
        let (outcome, waits) = extend(budget: 0.2, readings: [StallAllowance.floor / 2])
        XCTAssertEqual(waits, [0.2])
        XCTAssertEqual(outcome.allowed, 0)
    }

    /// An extension ends by the ceiling (a second before the test's hang watch fires), so that
    /// a leak fails as a leak rather than as a hang.
    func testAnExtensionStopsBeforeTheTestsHangWatch() {
        var waits: [Seconds] = []
        let ceiling = MonotonicClock.now() + 0.3
        let outcome = StallAllowance.extend(budget: 0.1, lost: { 3 }, until: { ceiling }) { seconds in
            waits.append(seconds)
            MonotonicClock.sleep(for: seconds)
            return false
        }
        XCTAssertLessThanOrEqual(waits.count, 2, "\(waits)")
        XCTAssertLessThanOrEqual(waits.last ?? 1, 0.2, "\(waits)")
        XCTAssertLessThanOrEqual(outcome.allowed, 0.2)
    }

    func testTheAllowanceStopsAtItsMost() {
        let (outcome, waits) = extend(budget: 0.2, readings: [60])
        XCTAssertEqual(waits, [0.2, StallAllowance.most])
        XCTAssertEqual(outcome.allowed, StallAllowance.most)
        XCTAssertTrue(StallAllowance.clause(outcome.allowed).contains("extended by 5.00 s for a stall of the machine"))
        XCTAssertEqual(StallAllowance.clause(0), "")
    }

    /// A callback is judged on the time it recorded: one that came at 1.2 s, seen only after a
    /// main-queue block held the waiting main thread for 1.6 s, is late for a 100 ms budget
    /// (the wait's last poll saw it, and passed it, before).
    func testACallbackSeenOnlyAfterItsBudgetFails() {
        let recorder = RecordingReporter()
        let site = FailureSite(fileID: #fileID, filePath: #filePath, line: #line, column: 1)
        let call = AssertionCall(reporter: recorder.reporter, site: site)
        _ = HarnessAssertions.calledExactlyOnce(within: 0.1, grace: 0.05, call) {
            (done: @escaping @Sendable (Int) -> Void) in
            DispatchQueue.main.async { Thread.sleep(forTimeInterval: 1.6) }  // holds the waiting main thread: the point
            DispatchQueue.global().asyncAfter(deadline: .now() + 1.2) { done(1) }
        }
        XCTAssertEqual(recorder.messages.count, 1, "\(recorder.messages)")
        XCTAssertTrue(
            recorder.messages.first?.hasPrefix("the callback was called") == true
                && recorder.messages.first?.contains("after the start, past its 100 ms budget") == true,
            "\(recorder.messages)")
    }

    // MARK: Real stalls

    /// A release due right after a 1 s stop passes a 500 ms budget; the same wait with no stall
    /// and a release 700 ms late still fails (a late timer is not excused).
    func testAReleaseMadeLateByAStallPassesAndALateOneWithoutFails() throws {
        final class Reply: Sendable {}
        let recorder = RecordingReporter()
        let site = FailureSite(fileID: #fileID, filePath: #filePath, line: #line, column: 1)
        let call = AssertionCall(reporter: recorder.reporter, site: site)
        let took = HarnessAssertions.released(within: 0.5, call) { () -> Reply in
            let reply = Reply(), owner = Shared<Reply?>(reply)  // let go once the stall is over
            try? stopThisProcess(after: 0.1, for: 1) { owner.set(nil) }
            return reply
        }
        XCTAssertEqual(recorder.messages, [])
        XCTAssertGreaterThan(took ?? 0, 1)
        HarnessAssertions.$secondLookFloor.withValue(0.5) {
            _ = HarnessAssertions.released(within: 0.5, call) { () -> Reply in
                let reply = Reply()
                DispatchQueue.global().asyncAfter(deadline: .now() + 1.2) { withExtendedLifetime(reply) {} }
                return reply
            }
        }
        XCTAssertEqual(recorder.messages.count, 1)
        XCTAssertTrue(recorder.messages.first?.contains("it was released late") == true, "\(recorder.messages)")
    }

    /// A hang watch moves its limit on by the time the process was stopped: a test that runs
    /// 200 ms of its own across a 1.5 s stop is no hang under a 1 s watch.
    func testAHangWatchDoesNotCountTimeTheProcessWasStopped() throws {
        let fired = Mutex<String?>(nil)
        let over = DispatchSemaphore(value: 0)
        let watch = HangWatch(limit: 1, testName: "stopped") { text in fired.withLock { $0 = text } }
        defer { watch.testEnded() }
        try stopThisProcess(after: 0.1, for: 1.5) { over.signal() }
        XCTAssertEqual(over.wait(timeout: .now() + 10), .success)
        MonotonicClock.sleep(for: 0.1)
        XCTAssertTrue(watch.testEnded(), "the watch fired: \(fired.withLock { $0 } ?? "")")
    }
}
