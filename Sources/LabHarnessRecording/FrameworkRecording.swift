import Foundation
import LabHarness
import Testing
import XCTest

/// Records a harness failure in whichever test framework is running the caller, so that no
/// failure is dropped whichever module's assertion a test calls:
///
/// 1. inside a Swift Testing test (`Test.current` is set): an `Issue` at the caller's
///    `SourceLocation`;
/// 2. otherwise, in a Swift Testing run (`SwiftTestingRun.isUnderway`) off any test's task (a
///    detached task, a dispatch queue, a thread of its own, where `Test.current` is nil): an
///    `Issue` all the same, which Swift Testing hands to every run going on in the process,
///    listed under no test («unknown») and failing the run; with one line on stderr, and the
///    process exits non-zero whatever the run's verdict (`outsideSwiftTestingTest`);
/// 3. otherwise inside an XCTest test: `XCTFail` at the caller's file and line (or the running
///    test case's `recordFailure` when the site has no static path);
/// 4. otherwise: one line on stderr, and the process exits non-zero (`UnattendedFailure`).
///
/// XCTest has no public "current test", so the running test case is learnt from an observer
/// installed by the first assertion call. Until that observer has seen a test start, a failure
/// in a test binary goes to `XCTFail` (which XCTest records at the running test case from any
/// thread: an async test runs off the main thread); one that XCTest then passes to no observer
/// was kept by that test case on purpose (a test of tests), or no XCTest test was running: a
/// note on stderr, unless a Swift Testing test has been seen in the process (then case 2).
public enum FrameworkRecording {
    /// Installs the XCTest observer; every assertion calls it on entry, so the observer sees the
    /// next test start.
    public static func prepare() {
        SuiteContinuation.bindIfRelaunched()
        // Inside a Swift Testing test, XCTest runs no test in this process: nothing to follow
        // (and on Linux the main actor is the main queue on a worker thread, where asking the
        // main queue to add the observer would wait for the caller itself).
        guard Test.current == nil, ExitTest.current == nil else { return SwiftTestingRun.noteTestSeen() }
        guard !SwiftTestingRun.startedForSwiftTesting else { return }
        XCTestTracker.installIfNeeded()
    }

    /// Records `message` at `site` in the framework running the caller (see the type's doc).
    public static func record(_ message: String, at site: FailureSite) {
        // Inside a test, or in an exit test's body: Swift Testing hands an exit test's issues
        // to the parent test.
        if Test.current != nil || ExitTest.current != nil {
            SwiftTestingRun.noteTestSeen()
            recordIssue(message, at: site)
            return
        }
        // A watchdog's thread, recording for a Swift Testing test stuck in a synchronous wait.
        if SwiftTestingRun.recordForWaitingTest(message, at: site) { return }
        // Started for Swift Testing: no XCTest test runs here, and `XCTFail` would record at none.
        if SwiftTestingRun.startedForSwiftTesting { return outsideSwiftTestingTest(message, at: site) }
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
            // run: "no test to record it", though it passed.) Unless a Swift Testing test has been
            // seen in this process (Xcode runs both frameworks in one): then the failure more
            // likely comes from off that test's task, and it fails the run (a test of tests that
            // keeps its failure there fails it too, the price of never dropping one).
            let before = XCTestTracker.failuresSeen
            recordInXCTest(message, at: site, in: nil)
            if XCTestTracker.failuresSeen == before {
                if SwiftTestingRun.isUnderway { return outsideSwiftTestingTest(message, at: site) }
                ProcessEnd.say(
                    "\(site): note: LabHarness recorded a failure through XCTFail before seeing any XCTest test start: \(message)\n"
                )
            }
        default:
            if SwiftTestingRun.isUnderway { return outsideSwiftTestingTest(message, at: site) }
            UnattendedFailure.report(message, at: site)
        }
    }

    private static func recordIssue(_ message: String, at site: FailureSite) {
        Issue.record(
            Comment(rawValue: message),
            sourceLocation: SourceLocation(
                fileID: site.fileID, filePath: site.filePath, line: site.line, column: site.column))
    }

    /// A failure in a Swift Testing run from where `Test.current` is nil. Swift Testing takes an
    /// issue recorded there (its task has no test configuration) to every run going on in the
    /// process: listed as `Test «unknown» recorded an issue at <site>`, and that run fails. It
    /// cannot say which test the failure belongs to, nor can the harness (tests run in
    /// parallel). When no run is going on (it ended, or has not begun) the issue lands nowhere,
    /// so the process is also made to exit 1 at its end, and stderr says why: never dropped.
    private static func outsideSwiftTestingTest(_ message: String, at site: FailureSite) {
        recordIssue(message, at: site)
        ProcessEnd.say(
            "\(site): error: LabHarness recorded a failure outside any Swift Testing test (from a detached task, a dispatch queue or a thread, where Test.current is nil); Swift Testing cannot tell which test it belongs to, and the process will exit 1: \(message)\n"
        )
        UnattendedFailure.failProcessAtExit()
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
