import Foundation
import HarnessUserKit
import LabHarnessTesting
import Testing

extension HarnessUserSwiftTests {
    /// What holds a leak (see `HolderXCTests`).
    @Suite struct Holders {
        @Test func aLeakyDownloader_isRecordedNamingTheClosureThatHoldsIt() {
            HarnessUserSwiftTests.expectOneIssue(atLine: #line + 2,
                                                 containing: "held by a closure stored in its own property `onFinish`, which captured it (a retain cycle)") {
                assertReleased(within: .milliseconds(100)) { () -> LeakyDownloader in
                    let downloader = LeakyDownloader()
                    downloader.start()
                    return downloader
                }
            }
        }

        @Test func aTidyDownloader_passes() {
            #expect(assertReleased(within: 1) { () -> TidyDownloader in
                let downloader = TidyDownloader()
                downloader.start()
                return downloader
            } != nil)
        }

        @Test func aControllerAndItsSession_failNamingEachOthersProperty() {
            let check = LeakCheck()
            do {
                let controller = check.track(ScreenController(), "controller")
                controller.open()
                check.track(controller.session!, "session")
            }
            let recorder = LabHarness.RecordingReporter()
            check.assertAllReleased(within: .milliseconds(200), reporter: recorder.reporter)
            let text = recorder.messages.joined(separator: "\n")
            #expect(recorder.messages.count == 2, "\(text)")
            #expect(text.contains("held by session's stored property `delegate`"), "\(text)")
            #expect(text.contains("held by controller's stored property `session`"), "\(text)")
        }

        @Test func aCachedDownloader_isRecordedSayingItCouldNotFindTheHolder() {
            HarnessUserSwiftTests.expectOneIssue(atLine: #line + 1, containing: "LabHarness found no holder among what it can look into") {
                assertReleased(within: .milliseconds(100)) { () -> CachedDownloader in
                    let downloader = CachedDownloader()
                    downloader.start()
                    return downloader
                }
            }
        }

        @Test func aSlowlyReleasedDownloader_isRecordedAsReleasedLateAtAShortWait() {
            HarnessUserSwiftTests.expectOneIssue(atLine: #line + 1, containing: "it was released late") {
                assertReleased(within: 0.5) { () -> SlowlyReleasedDownloader in
                    let downloader = SlowlyReleasedDownloader(delay: 3)
                    downloader.start()
                    return downloader
                }
            }
        }
    }
}
