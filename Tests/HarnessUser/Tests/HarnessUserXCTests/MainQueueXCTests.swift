import Foundation
import HarnessUserKit
import LabHarnessXCTest
import XCTest

/// "Called on the main queue": true for main-queue delivery whichever thread drains the queue.
final class MainQueueXCTests: CapturingTestCase {
    /// Fixed: delivered on the main queue (drained here by the main thread, which the wait runs).
    func testAMainQueuePresenter_callsBackOnTheMainQueue() {
        let call = assertCalledOnMainQueue(within: 2) { (done: @escaping @Sendable (String) -> Void) in
            MainQueuePresenter().present(done)
        }
        XCTAssertEqual(call?.isOnMainQueue, true)
    }

    /// Bad: delivered on a global queue.
    func testABackgroundPresenter_failsNamingTheThread() {
        expectOneFailure(atLine: #line + 1, containing: "the callback was called on thread", "not on the main queue") {
            assertCalledOnMainQueue(within: 2) { (done: @escaping @Sendable (String) -> Void) in
                BackgroundPresenter().present(done)
            }
        }
    }

    /// The async form, from an async test (its body off the main thread).
    func testAMainQueuePresenterInAnAsyncTest_callsBackOnTheMainQueue() async {
        let call = await assertCalledOnMainQueue(within: 2) { (done: @escaping @Sendable (String) -> Void) in
            MainQueuePresenter().present(done)
        }
        XCTAssertEqual(call?.isOnMainQueue, true)
    }
}
