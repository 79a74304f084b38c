import Synchronization
import XCTest

/// Follows XCTest's runs through `XCTestObservationCenter`: which test case is running, and
/// how many failures observers have been told of (to learn whether `XCTFail` reached a test).
final class XCTestTracker: NSObject, XCTestObservation, @unchecked Sendable {
    // XCTestObservation requires an NSObject subclass; its state lives in a Mutex.
    enum State {
        /// No test has started since the observer was installed: the caller may be inside the
        /// test that was running when it was.
        case unknown
        case running(TestCaseReference)
        case between
    }

    /// A running test case, handed between threads: XCTest keeps it alive while it runs, and
    /// the harness only calls `recordFailure` on it, which XCTest allows from any thread.
    final class TestCaseReference: @unchecked Sendable {
        weak var testCase: XCTestCase?
        init(_ testCase: XCTestCase) { self.testCase = testCase }
    }

    private struct Shared {
        var state: State = .unknown
        var seenATest = false
        var failures = 0
    }

    private static let shared = Mutex<Shared>(Shared())
    private static let installed = Atomic<Bool>(false)

    static func installIfNeeded() {
        guard !installed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let adding = AddOnce(XCTestTracker())
        if Thread.isMainThread { return adding.add() }
        // Off the main thread (the first assertion of an async test, whose body runs on the
        // concurrency pool): XCTest's observer list belongs to the main thread, which turns its
        // run loop while it awaits an async test, so ask it there. The observer must be in place
        // before this assertion can fail (see `FrameworkRecording`): when the main thread does
        // not answer within a quarter second it is blocked (a synchronous test waiting for this
        // thread), touches no observer, and the observer is added from here.
        let added = DispatchSemaphore(value: 0)
        DispatchQueue.main.async { adding.add(); added.signal() }
        if added.wait(timeout: .now() + .milliseconds(250)) == .timedOut { adding.add() }
    }

    /// Adds the observer to XCTest once, whichever of two threads gets there first.
    private final class AddOnce: Sendable {
        private let observer: XCTestTracker
        private let done = Mutex(false)
        init(_ observer: XCTestTracker) { self.observer = observer }
        func add() {
            guard done.withLock({ done in defer { done = true }; return !done }) else { return }
            XCTestObservationCenter.shared.addTestObserver(observer)
        }
    }

    static var state: State { shared.withLock { $0.state } }
    static var failuresSeen: Int { shared.withLock { $0.failures } }
    static var hasSeenATest: Bool { shared.withLock { $0.seenATest } }

    func testCaseWillStart(_ testCase: XCTestCase) {
        let reference = TestCaseReference(testCase)
        Self.shared.withLock { $0.state = .running(reference); $0.seenATest = true }
    }

    func testCaseDidFinish(_ testCase: XCTestCase) {
        Self.shared.withLock { $0.state = .between }
    }

    func testCase(_ testCase: XCTestCase, didFailWithDescription description: String, inFile filePath: String?, atLine lineNumber: Int) {
        Self.shared.withLock { $0.failures += 1 }
    }
}
