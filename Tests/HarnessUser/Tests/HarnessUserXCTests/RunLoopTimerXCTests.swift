import Foundation
import HarnessUserKit
import LabHarnessXCTest
import XCTest

/// A `Timer` on `RunLoop.main`: the helpers' waits run the main run loop on the main thread.
final class RunLoopTimerXCTests: CapturingTestCase {
    /// Fixed: the timer is added to the main run loop and fires.
    func testAScheduledMainRunLoopTimer_callsBack() {
        XCTAssertNotNil(assertCalledExactlyOnce(within: 2) { (done: @escaping @Sendable (String) -> Void) in
            MainRunLoopReminder().remind(after: 0.05, done)
        })
    }

    /// Bad: the timer is never added to a run loop.
    func testAnUnscheduledTimer_failsAsNeverCalled() {
        expectOneFailure(atLine: #line + 1, containing: "the callback was never called within 500 ms") {
            assertCalledExactlyOnce(within: 0.5) { (done: @escaping @Sendable (String) -> Void) in
                MainRunLoopReminder().remindForgettingToSchedule(after: 0.05, done)
            }
        }
    }

    /// The async form, from an async test (its body off the main thread, while XCTest runs
    /// the main run loop).
    func testAScheduledMainRunLoopTimerInAnAsyncTest_callsBack() async {
        let call = await assertCalledExactlyOnce(within: 2) { (done: @escaping @Sendable (String) -> Void) in
            MainRunLoopReminder().remind(after: 0.05, done)
        }
        XCTAssertNotNil(call)
    }

    /// Bad, the async form: the second call comes from a `RunLoop.main` timer during the grace.
    func testAReminderThatAnswersEarlyAndAgainFromItsTimerInAnAsyncTest_failsAsCalledTwice() async {
        await expectOneFailure(atLine: #line + 1, containing: "the callback was called 2 times") {
            await assertCalledExactlyOnce(within: 2, grace: 1) { (done: @escaping @Sendable (String) -> Void) in
                MainRunLoopReminder().remindAnsweringEarly(after: 0.1, done)
            }
        }
    }
}
