import Foundation
import HarnessUserKit
import LabHarnessTesting
import Testing

extension HarnessUserSwiftTests {
    /// "Called on the main queue" under Swift Testing, where on Linux a dispatch worker drains
    /// the main queue (`Thread.isMainThread` is false in the completion).
    @Suite struct MainQueue {
        @Test func aMainQueuePresenter_callsBackOnTheMainQueue() {
            let call = assertCalledOnMainQueue(within: 2) { (done: @escaping @Sendable (String) -> Void) in
                MainQueuePresenter().present(done)
            }
            #expect(call?.isOnMainQueue == true)
        }

        @Test func aBackgroundPresenter_isRecordedNamingTheThread() {
            HarnessUserSwiftTests.expectOneIssue(atLine: #line + 1, containing: "not on the main queue") {
                assertCalledOnMainQueue(within: 2) { (done: @escaping @Sendable (String) -> Void) in
                    BackgroundPresenter().present(done)
                }
            }
        }

        @MainActor @Test func aMainQueuePresenterOnTheMainActor_callsBackOnTheMainQueue() async {
            let call = await assertCalledOnMainQueue(within: 2) { (done: @escaping @Sendable (String) -> Void) in
                MainQueuePresenter().present(done)
            }
            #expect(call?.isOnMainQueue == true)
        }

        /// A synchronous `@MainActor` test runs inside a task on the main queue, which the
        /// synchronous wait holds (`noasync` sees no async code here): the presenter's main-queue
        /// block cannot run while it waits, and the failure says so, not only that no call came.
        /// The fix is the test above: `async`, and `await`.
        @MainActor @Test func aMainQueuePresenterInASynchronousTest_isRecordedSayingTheWaitHeldTheMainActor() {
            HarnessUserSwiftTests.expectOneIssue(
                atLine: #line + 2, containing: "was to call the callback could not; call the assertion with `await`"
            ) {
                assertCalledOnMainQueue(within: 0.3) { (done: @escaping @Sendable (String) -> Void) in
                    MainQueuePresenter().present(done)
                }
            }
        }
    }
}
