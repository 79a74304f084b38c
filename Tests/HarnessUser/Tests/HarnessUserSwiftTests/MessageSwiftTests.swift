import Foundation
import HarnessUserKit
import LabHarnessTesting
import Testing

extension HarnessUserSwiftTests {
    /// Messages that point at the fix: what still holds a leak, whether a release was only
    /// late, who called a callback twice, which `track` line leaked.
    @Suite struct Messages {
        @Test func aLeakyDownloader_failsSayingHowManyReferencesHoldIt() {
            HarnessUserSwiftTests.expectOneIssue(atLine: #line + 2,
                                                 containing: "nor within a second look of 5.00 s: 1 strong reference still holds it") {
                assertReleased(within: .milliseconds(100)) { () -> LeakyDownloader in
                    let downloader = LeakyDownloader()
                    downloader.start()
                    return downloader
                }
            }
        }

        @Test func aLingeringDownloader_failsAsReleasedLate() {
            HarnessUserSwiftTests.expectOneIssue(atLine: #line + 1, containing: "it was released late") {
                assertReleased(within: .milliseconds(100)) { () -> LingeringDownloader in
                    let downloader = LingeringDownloader()
                    downloader.start()
                    return downloader
                }
            }
        }

        @Test func aLingeringDownloaderGivenTime_passes() {
            #expect(assertReleased(within: 2) { () -> LingeringDownloader in
                let downloader = LingeringDownloader()
                downloader.start()
                return downloader
            } != nil)
        }

        @Test(.stacksAvailable) func aSloppyLoader_failsNamingBothCallsAndWhereTheyCameFrom() {
            // Line 12 reports the error; line 15, reached for want of a `return`, reports success.
            HarnessUserSwiftTests.expectOneIssue(atLine: #line + 3, containing:
                "call 1 with failure(HarnessUserKit.LoadError.invalidID) from closure in SloppyLoader.load (Loaders.swift:12); "
                + "call 2 with success(\"item -1\") from closure in SloppyLoader.load (Loaders.swift:15)") {
                assertCalledExactlyOnce(within: 1, grace: .seconds(1)) {
                    (done: @escaping @Sendable (Result<String, LoadError>) -> Void) in
                    SloppyLoader.load(id: -1, completion: done)
                }
            }
        }

        @Test func aCarefulLoaderOnItsErrorPath_passes() {
            #expect(assertCalledExactlyOnce(within: 1, grace: .milliseconds(200)) {
                (done: @escaping @Sendable (Result<String, LoadError>) -> Void) in
                CarefulLoader.load(id: -1, completion: done)
            } != nil)
        }

        @Test func aLeakCheck_failsAtTheTrackLine() {
            let check = LeakCheck()
            let trackedAt = #line + 1
            check.track(LeakyDownloader(), "leaky downloader").start()
            check.track(TidyDownloader(), "tidy downloader").start()
            HarnessUserSwiftTests.expectOneIssue(atLine: trackedAt, containing: "leaky downloader was still alive 200 ms after the check began") {
                check.assertAllReleased(within: .milliseconds(200))
            }
        }

        /// Two downloaders tracked under one label are two: the leaky one is not hidden by the
        /// tidy one tracked after it.
        @Test func aLeakTrackedUnderALabelUsedAgain_failsAtItsTrackLine() {
            let check = LeakCheck()
            let trackedAt = #line + 1
            check.track(LeakyDownloader(), "downloader").start()
            check.track(TidyDownloader(), "downloader").start()
            HarnessUserSwiftTests.expectOneIssue(atLine: trackedAt, containing: "downloader was still alive 200 ms after the check began") {
                check.assertAllReleased(within: .milliseconds(200))
            }
        }

        @Test func aFrugalFetcherAsked_passesReportingItsThreadCount() async {
            // The note goes to stdout; an exit test's stdout is what this test can read.
            let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
                // The synchronous form, in a function of its own: the exit test's body is async.
                func measure() {
                    assertThreadPeak(staysUnder: 4, reportsPass: true) {
                        FrugalFetcher.fetchAll(count: 16, latency: 0.02)
                    }
                }
                measure()
            }
            let stdout = String(decoding: result?.standardOutputContent ?? [], as: UTF8.self)
            #expect(stdout.contains(": note: the block added "), "\(stdout)")
            #expect(stdout.contains("under the limit of 4"), "\(stdout)")
        }

        @Test(.threadBudget(added: 4, reportsPass: true)) func aFrugalFetcherUnderABudgetThatReports_passes() {
            FrugalFetcher.fetchAll(count: 16, latency: 0.02)
        }
    }
}
