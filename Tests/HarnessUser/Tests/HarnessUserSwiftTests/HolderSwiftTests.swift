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

        // MARK: Unowned references are not holders (see `HolderXCTests`)

        @Test func anUnownedSelfClosure_isNotNamedAsTheHolder() {
            let recorder = LabHarness.RecordingReporter()
            HarnessAssertions.$secondLookFloor.withValue(0.5) {
                _ = assertReleased(within: .milliseconds(100), reporter: recorder.reporter) {
                    () -> UnownedCachedDownloader in
                    let downloader = UnownedCachedDownloader()
                    downloader.start()
                    return downloader
                }
            }
            let text = recorder.messages.joined(separator: "\n")
            #expect(recorder.messages.count == 1, "\(text)")
            #expect(text.contains("LabHarness found no holder among what it can look into"), "\(text)")
            #expect(!text.contains("retain cycle"), "\(text)")
            #expect(!text.contains("onFinish"), "\(text)")
        }

        @Test func aParentAndItsUnownedChild_nameOnlyTheParentsProperty() {
            let check = LeakCheck()
            do {
                let parent = check.track(TreeParent(), "parent")
                parent.register()
                check.track(parent.child!, "child")
            }
            let recorder = LabHarness.RecordingReporter()
            check.assertAllReleased(within: .milliseconds(200), reporter: recorder.reporter)
            let text = recorder.messages.joined(separator: "\n")
            let parent = recorder.messages.first { $0.hasPrefix("parent was still alive") } ?? ""
            #expect(recorder.messages.count == 2, "\(text)")
            #expect(parent.contains("LabHarness found no holder among what it can look into"), "\(text)")
            #expect(!parent.contains("`parent`"), "\(text)")
            #expect(text.contains("held by parent's stored property `child`"), "\(text)")
        }

        @Test func aClosureCapturingAnObjectWithAnUnownedUnsafeBackPointer_isNotNamedAsTheHolder() {
            let recorder = LabHarness.RecordingReporter()
            HarnessAssertions.$secondLookFloor.withValue(0.5) {
                _ = assertReleased(within: .milliseconds(100), reporter: recorder.reporter) { () -> RegisteredPlayer in
                    let player = RegisteredPlayer()
                    player.start()
                    return player
                }
            }
            let text = recorder.messages.joined(separator: "\n")
            #expect(text.contains("LabHarness found no holder among what it can look into"), "\(text)")
            #expect(!text.contains("retain cycle"), "\(text)")
            #expect(!text.contains("onEnd"), "\(text)")
        }

        // MARK: Swift 6's closure types

        @Test func aSendableClosureCycle_isRecordedNamingTheClosure() {
            HarnessAssertions.$secondLookFloor.withValue(0.5) {
                HarnessUserSwiftTests.expectOneIssue(atLine: #line + 2,
                                                     containing: "held by a closure stored in its own property `onTick`, which captured it (a retain cycle)") {
                    assertReleased(within: .milliseconds(100)) { () -> SendableTicker in
                        let ticker = SendableTicker()
                        ticker.start()
                        return ticker
                    }
                }
            }
        }

        @Test func aMainActorSendableClosureCycle_isRecordedNamingTheClosure() {
            HarnessAssertions.$secondLookFloor.withValue(0.5) {
                HarnessUserSwiftTests.expectOneIssue(atLine: #line + 2,
                                                     containing: "held by a closure stored in its own property `onTick`, which captured it (a retain cycle)") {
                    assertReleased(within: .milliseconds(100)) { () -> MainActorTicker in
                        let ticker = MainActorTicker()
                        ticker.start()
                        return ticker
                    }
                }
            }
        }

        @Test func aClosureInAnArrayOfClosures_isRecordedNamingTheElement() {
            HarnessAssertions.$secondLookFloor.withValue(0.5) {
                HarnessUserSwiftTests.expectOneIssue(atLine: #line + 2,
                                                     containing: "held by a closure stored in its own property `observers` (element 1), which captured it (a retain cycle)") {
                    assertReleased(within: .milliseconds(100)) { () -> ObservedStore in
                        let store = ObservedStore()
                        store.start()
                        return store
                    }
                }
            }
        }
    }
}
