import Foundation
import HarnessUserKit
import LabHarnessXCTest
import XCTest

/// Messages that point at the fix: what still holds a leak, whether a release was only late,
/// who called a callback twice, which `track` line leaked.
final class MessageXCTests: CapturingTestCase {
    func testALeakyDownloader_failsSayingHowManyReferencesHoldIt() {
        expectOneFailure(atLine: #line + 2, containing: "LeakyDownloader was not released within 100 ms",
                         "nor within a second look of 5.00 s: 1 strong reference still holds it") {
            assertReleased(within: .milliseconds(100)) { () -> LeakyDownloader in
                let downloader = LeakyDownloader()
                downloader.start()
                return downloader
            }
        }
    }

    func testALingeringDownloader_failsAsReleasedLate() {
        expectOneFailure(atLine: #line + 2, containing: "LingeringDownloader was not released within 100 ms",
                         "it was released late") {
            assertReleased(within: .milliseconds(100)) { () -> LingeringDownloader in
                let downloader = LingeringDownloader()
                downloader.start()
                return downloader
            }
        }
    }

    func testALingeringDownloaderGivenTime_passes() {
        assertReleased(within: 2) { () -> LingeringDownloader in
            let downloader = LingeringDownloader()
            downloader.start()
            return downloader
        }
    }

    func testASloppyLoader_failsNamingBothCallsAndWhereTheyCameFrom() throws {
        try skipWithoutStacks()
        // Line 12 reports the error; line 15, reached for want of a `return`, reports success.
        expectOneFailure(atLine: #line + 3, containing: "called 2 times",
                         "call 1 with failure(HarnessUserKit.LoadError.invalidID) from closure in SloppyLoader.load (Loaders.swift:12)",
                         "call 2 with success(\"item -1\") from closure in SloppyLoader.load (Loaders.swift:15)") {
            assertCalledExactlyOnce(within: 1, grace: .seconds(1)) {
                (done: @escaping @Sendable (Result<String, LoadError>) -> Void) in
                SloppyLoader.load(id: -1, completion: done)
            }
        }
    }

    func testACarefulLoaderOnItsErrorPath_passes() {
        let call = assertCalledExactlyOnce(within: 1, grace: .milliseconds(200)) {
            (done: @escaping @Sendable (Result<String, LoadError>) -> Void) in
            CarefulLoader.load(id: -1, completion: done)
        }
        XCTAssertNotNil(call)
    }

    func testALeakCheck_failsAtTheTrackLine() {
        let check = LeakCheck()
        let trackedAt = #line + 1
        check.track(LeakyDownloader(), "leaky downloader").start()
        check.track(TidyDownloader(), "tidy downloader").start()
        expectOneFailure(atLine: trackedAt, containing: "leaky downloader was still alive 200 ms after the check began",
                         "1 strong reference still holds it") {
            check.assertAllReleased(within: .milliseconds(200))
        }
    }

    /// Two downloaders tracked under one label are two: the leaky one is not hidden by the tidy
    /// one tracked after it.
    func testALeakTrackedUnderALabelUsedAgain_failsAtItsTrackLine() {
        let check = LeakCheck()
        let trackedAt = #line + 1
        check.track(LeakyDownloader(), "downloader").start()
        check.track(TidyDownloader(), "downloader").start()
        expectOneFailure(atLine: trackedAt, containing: "downloader was still alive 200 ms after the check began") {
            check.assertAllReleased(within: .milliseconds(200))
        }
    }

    func testALeakCheckOfTidyObjects_passes() {
        let check = LeakCheck()
        check.track(TidyDownloader(), "tidy downloader").start()
        check.assertAllReleased(within: 1)
    }

    func testAFrugalFetcherAsked_passesReportingItsThreadCount() {
        // The note goes to stdout; a child's stdout is what this test can read.
        let run = assertInChildProcess(expecting: .completed, budget: 20) {
            assertThreadPeak(staysUnder: 4, reportsPass: true) { FrugalFetcher.fetchAll(count: 16, latency: 0.02) }
        }
        let stdout = run?.stdout ?? ""
        XCTAssertTrue(stdout.contains("MessageXCTests.swift:\(#line - 3)"), stdout)
        XCTAssertTrue(stdout.contains(": note: the block added "), stdout)
        XCTAssertTrue(stdout.contains("under the limit of 4"), stdout)
    }
}
