// The README's XCTest example, word for word (ReadmeSyncXCTests checks it still matches).
import HarnessUserKit
import LabHarnessXCTest  // re-exports LabHarness
import XCTest

final class MyLibraryTests: XCTestCase {
    /// Any test of this process that runs past 30 s fails with every thread's stack.
    override class func setUp() {
        super.setUp()
        HangWatchObserver.install(after: 30)
    }

    /// The controller's stored closures must not keep it alive.
    func testControllerIsReleased() {
        assertReleased(within: .milliseconds(500)) {
            let controller = Controller()
            controller.start()  // stores closures, schedules work...
            return controller
        }
    }

    /// Runs on the main thread, as the app would: a fetch that waits for the main queue
    /// deadlocks here too, and fails naming the frame it is stuck in.
    func testFetchCompletes() {
        assertCompletes(within: 2) { _ = try? Client().fetchSynchronously() }
    }

    /// A thousand requests must not spawn a thread each.
    func testRequestsShareThreads() {
        assertThreadPeak(staysUnder: 16) {  // threads that appear while the block runs
            Client().sendAll(count: 1000)
        }
    }

    /// The completion handler runs exactly once, even when it is delivered on the main queue.
    func testHandlerIsCalledOnce() {
        assertCalledExactlyOnce(within: 1, grace: .milliseconds(200)) {
            (done: @escaping @Sendable (Result<Data, Error>) -> Void) in
            Client().download(completion: done)
        }
    }

    /// Code that deadlocks or traps runs in a fresh copy of the test process.
    func testLockOrderDeadlocks() {
        assertInChildProcess(expecting: .deadlock, budget: 2) { Ledger().transferBothWays() }
    }

    /// An async test (here on the main actor): `await` reaches the async forms.
    @MainActor func testModelIsReleased() async {
        await assertReleased(within: 0.5) {
            let model = Model()
            model.refresh()  // a main-actor task holds it briefly
            return model
        }
    }
}
