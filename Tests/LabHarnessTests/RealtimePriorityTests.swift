import Foundation
import LabHarness
import Synchronization
import XCTest

/// `RealtimePriority` asks for `SCHED_FIFO` and reports the scheduler's answer truthfully: a
/// grant is what the kernel then shows for the thread, a refusal leaves the thread as it was and
/// says what it would have needed.
final class RealtimePriorityTests: XCTestCase {
    /// On a thread of its own, so the test runner's threads keep their priority.
    func answerAndPolicy() throws -> (RealtimePriority.Grant, before: Int32, after: (policy: Int32, priority: Int32)) {
        let seen = Mutex<(RealtimePriority.Grant, Int32, (policy: Int32, priority: Int32))?>(nil)
        let done = DispatchSemaphore(value: 0)
        NamedThread.start("rt.probe") {
            let before = RealtimePriority.currentPolicy().policy
            let answer = RealtimePriority.requestForCurrentThread()
            seen.withLock { $0 = (answer, before, RealtimePriority.currentPolicy()) }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success)
        let (answer, before, after) = try XCTUnwrap(seen.withLock { $0 })
        return (answer, before, after)
    }

    func testTheAnswerIsWhatTheKernelThenReportsForTheThread() throws {
        let (answer, before, after) = try answerAndPolicy()
        switch answer {
        case .granted(let priority):
            XCTAssertEqual(after.policy, SCHED_FIFO, "\(answer)")
            XCTAssertEqual(after.priority, priority)
            XCTAssertEqual(priority, RealtimePriority.requestedPriority)
        case .refused(let code):
            XCTAssertNotEqual(code, 0)
            XCTAssertEqual(after.policy, before, "a refusal leaves the thread's policy as it was")
        }
    }

    func testEachAnswerSaysWhatTheThreadRanAt() {
        XCTAssertEqual(RealtimePriority.Grant.granted(priority: 1).description, "real-time priority (SCHED_FIFO 1)")
        let refused = RealtimePriority.Grant.refused(errno: EPERM).description
        XCTAssertTrue(refused.hasPrefix("normal priority"), refused)
        XCTAssertTrue(refused.contains("CAP_SYS_NICE"), "names what would have granted it: \(refused)")
        XCTAssertTrue(RealtimePriority.Grant.granted(priority: 1).isGranted)
        XCTAssertFalse(RealtimePriority.Grant.refused(errno: EPERM).isGranted)
    }
}
