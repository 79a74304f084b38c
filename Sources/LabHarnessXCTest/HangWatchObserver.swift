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
        let watch = HangWatch(limit: limit, testName: testCase.name) { message in
            // XCTest records a failure from any thread; the test's own thread is stuck.
            reference.testCase?.recordFailure(
                withDescription: message, inFile: site.filePath, atLine: site.line, expected: true)
        }
        settings.withLock { $0.watch = watch }
    }

    public func testCaseDidFinish(_ testCase: XCTestCase) {
        let watch = settings.withLock { settings in
            defer { settings.watch = nil }; return settings.watch
        }
        watch?.testEnded()
    }

    /// The running test case, handed to the watch's thread (XCTest keeps it alive while it runs).
    private final class TestCaseReference: @unchecked Sendable {
        weak var testCase: XCTestCase?
        init(_ testCase: XCTestCase) { self.testCase = testCase }
    }
}
