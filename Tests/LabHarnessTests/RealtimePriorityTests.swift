import Foundation
import LabHarness
import Synchronization
import XCTest

/// `RealtimePriority` asks for the platform's "on time" scheduling and reports the scheduler's
/// answer truthfully: a grant is what the kernel then shows for the thread, a refusal leaves
/// the thread as it was and says what it would have needed.
final class RealtimePriorityTests: XCTestCase {
    /// On a thread of its own, so the test runner's threads keep their priority.
    func answerAndPolicy() throws -> (
        RealtimePriority.Grant, before: RealtimePriority.Grant?, after: RealtimePriority.Grant?
    ) {
        let seen = Mutex<(RealtimePriority.Grant, RealtimePriority.Grant?, RealtimePriority.Grant?)?>(nil)
        let done = DispatchSemaphore(value: 0)
        NamedThread.start("rt.probe") {
            let before = RealtimePriority.currentGrant()
            let answer = RealtimePriority.requestForCurrentThread()
            seen.withLock { $0 = (answer, before, RealtimePriority.currentGrant()) }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success)
        let (answer, before, after) = try XCTUnwrap(seen.withLock { $0 })
        return (answer, before, after)
    }

    func testTheAnswerIsWhatTheKernelThenReportsForTheThread() throws {
        let (answer, before, after) = try answerAndPolicy()
        XCTAssertNil(before, "a new thread starts at normal priority")
        switch answer {
        case .granted(let priority):
            XCTAssertEqual(after, .granted(priority: priority), "\(answer)")
            XCTAssertEqual(priority, RealtimePriority.requestedPriority)
        case .timeConstraint:
            XCTAssertEqual(after, .timeConstraint(computationMicroseconds: 0, constraintMicroseconds: 0), "\(answer)")
        case .userInteractive:
            XCTAssertEqual(after, .userInteractive(kernelError: 0), "\(answer)")
        case .refused(let code):
            XCTAssertNotEqual(code, 0)
            XCTAssertNil(after, "a refusal leaves the thread at normal priority")
        }
    }

    /// Linux answers with SCHED_FIFO or a refusal; Darwin never with SCHED_FIFO, which demotes
    /// a thread there.
    func testThePlatformsOwnFormIsAskedFor() throws {
        let (answer, _, _) = try answerAndPolicy()
        if ["macos", "ios"].contains(PlatformInfo.current.os) {
            if case .granted = answer { XCTFail("SCHED_FIFO asked for on Darwin: \(answer)") }
        } else {
            switch answer {
            case .granted, .refused: break
            default: XCTFail("a Darwin policy reported on \(PlatformInfo.current.os): \(answer)")
            }
        }
    }

    func testEachAnswerSaysWhatTheThreadRanAt() {
        XCTAssertEqual(RealtimePriority.Grant.granted(priority: 1).description, "real-time priority (SCHED_FIFO 1)")
        let refused = RealtimePriority.Grant.refused(errno: EPERM).description
        XCTAssertTrue(refused.hasPrefix("normal priority"), refused)
        XCTAssertTrue(refused.contains("CAP_SYS_NICE"), "names what would have granted it: \(refused)")
        let constraint = RealtimePriority.Grant.timeConstraint(
            computationMicroseconds: 1000, constraintMicroseconds: 2000
        ).description
        XCTAssertTrue(constraint.contains("time-constraint") && constraint.contains("1000 µs"), constraint)
        let qos = RealtimePriority.Grant.userInteractive(kernelError: 4).description
        XCTAssertTrue(qos.hasPrefix("QoS user-interactive") && qos.contains("4"), qos)
        XCTAssertTrue(RealtimePriority.Grant.granted(priority: 1).isGranted)
        XCTAssertTrue(
            RealtimePriority.Grant.timeConstraint(computationMicroseconds: 1, constraintMicroseconds: 2).isGranted)
        XCTAssertTrue(RealtimePriority.Grant.userInteractive(kernelError: 4).isGranted)
        XCTAssertFalse(RealtimePriority.Grant.refused(errno: EPERM).isGranted)
    }
}
