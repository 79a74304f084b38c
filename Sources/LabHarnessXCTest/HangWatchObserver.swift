import Foundation
import LabHarnessRecording
import Synchronization
import XCTest

/// A time limit on every XCTest test of the process (XCTest on Linux has none), kept by a
/// thread of its own: when a test runs past it, the observer takes every thread's stack,
/// prints them grouped on stderr, records a failure at the running test (at the line that
/// installed the watch), and, since XCTest cannot stop a test, ends the process half a second
/// later with exit status 1, unless the test ended meanwhile. CI then fails within the limit
/// plus about a second and a half, with the stuck frames named, instead of hanging.
///
/// Install it once, before the tests it should watch start: in the `override class func
/// setUp()` of your test classes (or of a base class they share). A later install changes
/// the limit.
///
/// ```swift
/// final class NetworkTests: XCTestCase {
///     override class func setUp() {
///         super.setUp()
///         HangWatchObserver.install(after: 10)
///     }
/// }
/// ```
public final class HangWatchObserver: NSObject, XCTestObservation, @unchecked Sendable {
    // XCTestObservation requires an NSObject subclass; its state lives in a Mutex.
    private struct Settings {
        var limit: Seconds
        var site: FailureSite
        var watch: HangWatch?
        var gate: RecordingGate?
    }

    private let settings: Mutex<Settings>
    private nonisolated(unsafe) static var shared: HangWatchObserver?  // touched on the main thread only

    private init(_ settings: Settings) { self.settings = Mutex(settings) }

    /// Watches every test that starts from now on with a limit of
    /// `limit` (seconds, or a `Duration`). Call it on the main thread (XCTest's `setUp`s run there).
    public static func install(
        after limit: some WaitTime, file: StaticString = #filePath, line: UInt = #line,
        fileID: StaticString = #fileID, column: UInt = #column
    ) {
        let site = FailureSite(fileID: fileID, filePath: file, line: line, column: column)
        // The harness's own observer too, installed before the tests it watches start: after a
        // hang it names the hung test and runs the ones after it (`SuiteContinuation`).
        FrameworkRecording.prepare()
        if let shared {
            shared.settings.withLock {
                $0.limit = limit.labSeconds; $0.site = site
            }
            return
        }
        let observer = HangWatchObserver(Settings(limit: limit.labSeconds, site: site))
        shared = observer
        XCTestObservationCenter.shared.addTestObserver(observer)
    }

    public func testCaseWillStart(_ testCase: XCTestCase) {
        let reference = TestCaseReference(testCase)
        let (limit, site) = settings.withLock { ($0.limit, $0.site) }
        let name = testCase.name
        let gate = RecordingGate()
        let watch = HangWatch(limit: limit, testName: name) { message in
            // XCTest records a failure from any thread; the test's own thread is stuck.
            let recorded = gate.whileOpen {
                reference.testCase?.recordFailure(
                    withDescription: message, inFile: site.filePath, atLine: site.line, expected: true)
            }
            if !recorded {
                ProcessEnd.say(
                    "LabHarness: error: \(name) ran past its hang watch of \(Format.seconds(limit)) (its stacks are above); XCTest had begun to close the test (its teardown), after which no failure can be recorded on it, so this process will exit 1\n"
                )
                UnattendedFailure.failProcessAtExit()
            }
        }
        // Registered before `setUp`, so it runs after the test's body, before `tearDown()`.
        testCase.addTeardownBlock { gate.close(after: watch) }
        settings.withLock {
            $0.watch = watch; $0.gate = gate
        }
    }

    public func testCaseDidFinish(_ testCase: XCTestCase) {
        let (watch, gate) = settings.withLock { settings in
            defer { (settings.watch, settings.gate) = (nil, nil) }
            return (settings.watch, settings.gate)
        }
        watch?.testEnded()
        if let gate, gate.close(after: nil), !Self.saidGateUnused.exchange(true, ordering: .relaxed) {
            ProcessEnd.say(
                "LabHarness: note: XCTest did not run the hang watch's teardown block for \(testCase.name) (a test that overrides invokeTest?); a watch that fires just as such a test ends may record its failure after XCTest has closed the test\n"
            )
        }
    }

    private static let saidGateUnused = Atomic<Bool>(false)

    /// Where the watch's failure may land: on the test, while XCTest still takes failures for it.
    /// XCTest closes a test's run and only then tells its observers (swift-corelibs-xctest
    /// `XCTestCaseRun.stop`), and a failure recorded on a closed run traps the whole process
    /// (`XCTestRun.recordFailure`: "Invalid attempt to record a failure for a test run that has
    /// already been stopped"), costing every test after it; a watch firing just as its test
    /// ended did that under load. The test's teardown blocks are the last code of the test
    /// before the run closes that the harness can place (`XCTestCase.invokeTest`: body, teardown
    /// blocks, `tearDown()`; then `perform` stops the run). So the watch records only while
    /// the gate is open, holding it; the teardown block closes it, first letting a watch that
    /// has fired finish recording (its stacks take up to `waitForFiring`). A watch that fires
    /// after the gate closed (a test stuck in its `tearDown()`, or past that wait) says so on
    /// stderr and makes the process exit 1: the failure is never dropped, and never traps.
    private final class RecordingGate: Sendable {
        /// Seconds the teardown block waits for a fired watch to record: its stacks' and names'
        /// budgets (about 1.5 s together) and room for a loaded machine.
        static let waitForFiring = 4
        private let open = Mutex(true)
        private let attempted = DispatchSemaphore(value: 0)

        /// Runs `record` if the gate is open, holding it meanwhile; true if it ran.
        func whileOpen(_ record: () -> Void) -> Bool {
            defer { attempted.signal() }
            return open.withLock { isOpen in
                if isOpen { record() }
                return isOpen
            }
        }

        /// Closes the gate, after `watch`'s failure if it fired; true if it was open.
        @discardableResult
        func close(after watch: HangWatch?) -> Bool {
            if let watch, watch.fired { _ = attempted.wait(timeout: .now() + .seconds(Self.waitForFiring)) }
            return open.withLock { isOpen in
                defer { isOpen = false }
                return isOpen
            }
        }
    }

    /// The running test case, handed to the watch's thread (XCTest keeps it alive while it runs).
    private final class TestCaseReference: @unchecked Sendable {
        weak var testCase: XCTestCase?
        init(_ testCase: XCTestCase) { self.testCase = testCase }
    }
}
