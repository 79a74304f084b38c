import Foundation
import LabHarness
import Testing
import XCTest

/// Records a harness failure in whichever test framework is running the caller, so that no
/// failure is dropped whichever module's assertion a test calls:
///
/// 1. inside a Swift Testing test (`Test.current` is set): an `Issue` at the caller's
///    `SourceLocation`;
/// 2. otherwise inside an XCTest test: `XCTFail` at the caller's file and line (or the running
///    test case's `recordFailure` when the site has no static path);
/// 3. otherwise: one line on stderr, and the process exits non-zero (`UnattendedFailure`).
///
/// XCTest has no public "current test", so the running test case is learnt from an observer
/// installed by the first assertion call. Until that observer has seen a test start, a failure
/// in a test binary goes to `XCTFail` (which XCTest records at the running test case from any
/// thread: an async test runs off the main thread); one that XCTest then passes to no observer
/// also goes to stderr (from the main thread as a note, since a test of tests may swallow it
/// on purpose; from any other thread as an `UnattendedFailure`).
public enum FrameworkRecording {
    /// Installs the XCTest observer; every assertion calls it on entry, so the observer sees the
    /// next test start.
    public static func prepare() {
        SuiteContinuation.bindIfRelaunched()
        // Inside a Swift Testing test, XCTest runs no test in this process: nothing to follow
        // (and on Linux the main actor is the main queue on a worker thread, where asking the
        // main queue to add the observer would wait for the caller itself).
        guard Test.current == nil, ExitTest.current == nil else { return }
        XCTestTracker.installIfNeeded()
    }

    /// Records `message` at `site` in the framework running the caller (see the type's doc).
    public static func record(_ message: String, at site: FailureSite) {
        // Inside a test, or in an exit test's body: Swift Testing hands an exit test's issues
        // to the parent test.
        if Test.current != nil || ExitTest.current != nil {
            Issue.record(
                Comment(rawValue: message),
                sourceLocation: SourceLocation(
                    fileID: site.fileID, filePath: site.filePath, line: site.line, column: site.column))
            return
        }
        // A watchdog's thread, recording for a Swift Testing test stuck in a synchronous wait.
        if SwiftTestingRun.recordForWaitingTest(message, at: site) { return }
        XCTestTracker.installIfNeeded()
        switch XCTestTracker.state {
        case .running(let reference):
            recordInXCTest(message, at: site, in: reference.testCase)
        case .unknown where runsInTestBinary:
            // The observer came in during the test that is running (its end moves the state on),
            // on the main thread or off it (an async test's body runs on the concurrency pool).
            // XCTest's failure functions record at the running test case from any thread, and the
            // observer tells whether one took it. If none did, that test case kept the failure on
            // purpose (a test of tests that checks its failures) or no test is running: say so
            // where a person will see it, without failing the run. (Off the main thread this was
            // an unattended failure, and a test of tests that ran first in its process failed the
            // run: "no test to record it", though it passed.)
            let before = XCTestTracker.failuresSeen
            recordInXCTest(message, at: site, in: nil)
            if XCTestTracker.failuresSeen == before {
                ProcessEnd.say(
                    "\(site): note: LabHarness recorded a failure through XCTFail before seeing any XCTest test start: \(message)\n"
                )
            }
        default:
            UnattendedFailure.report(message, at: site)
        }
    }

    private static func recordInXCTest(_ message: String, at site: FailureSite, in testCase: XCTestCase?) {
        if let path = site.staticFilePath {
            XCTFail(message, file: path, line: UInt(site.line))
        } else if let testCase {
            testCase.recordFailure(withDescription: message, inFile: site.filePath, atLine: site.line, expected: true)
        } else {
            XCTFail("\(site): \(message)")
        }
    }

    /// Whether this process runs a package's tests (`TestBundleLocation.isTestProcess`: the test
    /// binary on Linux, a host that loaded the bundle on Darwin), where XCTest may be running
    /// tests on the main thread.
    static let runsInTestBinary: Bool = {
        TestBundleLocation.isTestProcess(CommandLine.arguments.first ?? "") || TestBundleLocation.loadedBundle != nil
    }()
}

extension FrameworkRecording {
    /// Starts counting the failures XCTest records in this process, for the body of a closure
    /// child trial (`ClosureChildTrial.runBodyAndExit`): the returned closure tells how many were
    /// recorded since, and describes the latest (`File.swift:12: failed - …`). Two counts, each
    /// moved by every failure that reaches XCTest from whatever thread: the harness's observer
    /// (which hears the descriptions) and `testCase.testRun?.totalFailureCount`, the test's own
    /// run, which stands were the observer to miss one. The larger wins. A test case that
    /// overrides `recordFailure` and keeps a failure (a test of tests) moves neither: that
    /// failure was meant not to fail its test.
    public static func xctestFailures(from testCase: XCTestCase) -> () -> (count: Int, described: [String]) {
        XCTestTracker.installIfNeeded()
        let heardBefore = XCTestTracker.failuresSeen
        let countedBefore = testCase.testRun?.totalFailureCount ?? 0
        return {
            let (heard, described) = XCTestTracker.failures(after: heardBefore)
            let counted = (testCase.testRun?.totalFailureCount ?? 0) - countedBefore
            return (max(heard, counted), described)
        }
    }
}
