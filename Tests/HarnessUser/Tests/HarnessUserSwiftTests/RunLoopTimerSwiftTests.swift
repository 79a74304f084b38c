import Foundation
import HarnessUserKit
import LabHarnessTesting
import Testing

extension HarnessUserSwiftTests {
    /// A `Timer` on `RunLoop.main` under Swift Testing, where on Linux the main thread is parked
    /// in `dispatch_main` and nothing else runs its run loop: the helpers' waits run it from the
    /// main queue, so the verdicts match XCTest's.
    @Suite struct RunLoopTimer {
        /// Fixed: the timer is added to the main run loop and fires (a test on the pool).
        @Test func aScheduledMainRunLoopTimer_callsBack() {
            #expect(assertCalledExactlyOnce(within: 2) { (done: @escaping @Sendable (String) -> Void) in
                MainRunLoopReminder().remind(after: 0.05, done)
            } != nil)
        }

        /// Bad: the timer is never added to a run loop.
        @Test func anUnscheduledTimer_isRecordedAsNeverCalled() {
            HarnessUserSwiftTests.expectOneIssue(atLine: #line + 1, containing: "the callback was never called within 500 ms") {
                assertCalledExactlyOnce(within: 0.5) { (done: @escaping @Sendable (String) -> Void) in
                    MainRunLoopReminder().remindForgettingToSchedule(after: 0.05, done)
                }
            }
        }

        /// Fixed, from a synchronous test on the main actor (on the main queue: the wait runs
        /// the main run loop right there).
        @MainActor @Test func aScheduledMainRunLoopTimerOnTheMainActor_callsBack() {
            #expect(assertCalledExactlyOnce(within: 2) { (done: @escaping @Sendable (String) -> Void) in
                MainRunLoopReminder().remind(after: 0.05, done)
            } != nil)
        }

        /// Fixed, from an async test on the main actor (the wait suspends; the main queue runs
        /// the turns).
        @MainActor @Test func aScheduledMainRunLoopTimerInAnAsyncMainActorTest_callsBack() async {
            let call = await assertCalledExactlyOnce(within: 2) { (done: @escaping @Sendable (String) -> Void) in
                MainRunLoopReminder().remind(after: 0.05, done)
            }
            #expect(call != nil)
        }

        /// Bad, from an async test on the pool: the second call comes from a `RunLoop.main`
        /// timer during the grace, which the wait must keep turning the main run loop for.
        @Test func aReminderThatAnswersEarlyAndAgainFromItsTimer_isRecordedAsCalledTwice() async {
            await HarnessUserSwiftTests.expectOneIssue(atLine: #line + 1, containing: "the callback was called 2 times") {
                await assertCalledExactlyOnce(within: 2, grace: 1) { (done: @escaping @Sendable (String) -> Void) in
                    MainRunLoopReminder().remindAnsweringEarly(after: 0.1, done)
                }
            }
        }
    }
}
