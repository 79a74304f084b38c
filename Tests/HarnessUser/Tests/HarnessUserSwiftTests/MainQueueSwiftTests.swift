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
    }
}
