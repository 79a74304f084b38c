import Foundation
import HarnessUserKit
import LabHarnessXCTest
import XCTest

/// A leak's message says what holds the object where the harness can see it, and says so when
/// it cannot; a release that comes within the second look is "late" whatever `within:` was.
final class HolderXCTests: CapturingTestCase {
    /// Bad: the downloader's stored closure captures it. Before: "1 strong reference still holds
    /// it (a retain cycle, or an owner that keeps it)" and nothing else.
    func testALeakyDownloader_failsNamingTheClosureThatHoldsIt() {
        expectOneFailure(atLine: #line + 2, containing: "LeakyDownloader was not released within 100 ms",
                         "held by a closure stored in its own property `onFinish`, which captured it (a retain cycle)") {
            assertReleased(within: .milliseconds(100)) { () -> LeakyDownloader in
                let downloader = LeakyDownloader()
                downloader.start()
                return downloader
            }
        }
    }

    /// Fixed: `[weak self]`.
    func testATidyDownloader_passes() {
        XCTAssertNotNil(assertReleased(within: 1) { () -> TidyDownloader in
            let downloader = TidyDownloader()
            downloader.start()
            return downloader
        })
    }

    /// Bad: a controller and its session keep each other; a LeakCheck tracking both names the
    /// stored property on each side.
    func testAControllerAndItsSession_failNamingEachOthersProperty() {
        let check = LeakCheck()
        do {
            let controller = check.track(ScreenController(), "controller")
            controller.open()
            check.track(controller.session!, "session")
        }
        let recorder = LabHarness.RecordingReporter()
        check.assertAllReleased(within: .milliseconds(200), reporter: recorder.reporter)
        let failures = recorder.messages
        let text = failures.joined(separator: "\n")
        XCTAssertEqual(failures.count, 2, text)
        XCTAssertTrue(text.contains("controller was still alive 200 ms after the check began"), text)
        XCTAssertTrue(text.contains("held by session's stored property `delegate`"), text)
        XCTAssertTrue(text.contains("held by controller's stored property `session`"), text)
    }

    /// Not found: a cache the harness cannot see holds it, and the message says it could not tell.
    func testACachedDownloader_failsSayingItCouldNotFindTheHolder() {
        expectOneFailure(atLine: #line + 1, containing: "1 strong reference still holds it; LabHarness found no holder among what it can look into (the object itself)") {
            assertReleased(within: .milliseconds(100)) { () -> CachedDownloader in
                let downloader = CachedDownloader()
                downloader.start()
                return downloader
            }
        }
    }

    /// A release 3 s late at `within: 0.5`: "released late", not a retain cycle (the second look
    /// was four times the wait, 2 s, before).
    func testASlowlyReleasedDownloader_failsAsReleasedLateAtAShortWait() {
        expectOneFailure(atLine: #line + 2, containing: "SlowlyReleasedDownloader was not released within 500 ms",
                         "it was released late") {
            assertReleased(within: 0.5) { () -> SlowlyReleasedDownloader in
                let downloader = SlowlyReleasedDownloader(delay: 3)
                downloader.start()
                return downloader
            }
        }
    }

    // MARK: Unowned references are not holders

    /// `[unowned self]` breaks the closure's cycle; a static cache is what keeps it. Before: "held
    /// by a closure stored in its own property `onFinish`, which captured it (a retain cycle)",
    /// telling the author the fix had failed.
    func testAnUnownedSelfClosure_isNotNamedAsTheHolder() {
        let failure = HarnessAssertions.$secondLookFloor.withValue(0.5) {
            expectOneFailure(atLine: #line + 2, containing: "UnownedCachedDownloader was not released",
                             "LabHarness found no holder among what it can look into") {
                assertReleased(within: .milliseconds(100)) { () -> UnownedCachedDownloader in
                    let downloader = UnownedCachedDownloader()
                    downloader.start()
                    return downloader
                }
            }
        }
        XCTAssertFalse(failure.contains("retain cycle"), failure)
        XCTAssertFalse(failure.contains("onFinish"), failure)
    }

    /// A child's `unowned let parent` does not hold the parent (a registry does); the parent's
    /// `child` does hold the child. Before: "held by child's stored property `parent`".
    func testAParentAndItsUnownedChild_nameOnlyTheParentsProperty() {
        let check = LeakCheck()
        do {
            let parent = check.track(TreeParent(), "parent")
            parent.register()
            check.track(parent.child!, "child")
        }
        let recorder = LabHarness.RecordingReporter()
        check.assertAllReleased(within: .milliseconds(200), reporter: recorder.reporter)
        let failures = recorder.messages
        let text = failures.joined(separator: "\n")
        XCTAssertEqual(failures.count, 2, text)
        let parent = failures.first { $0.hasPrefix("parent was still alive") } ?? ""
        XCTAssertTrue(parent.contains("LabHarness found no holder among what it can look into"), text)
        XCTAssertFalse(parent.contains("`parent`"), text)
        XCTAssertTrue(text.contains("child was still alive 200 ms after the check began"), text)
        XCTAssertTrue(text.contains("held by parent's stored property `child`"), text)
    }

    /// A closure captures a session whose `unowned(unsafe) var owner` is the object; a registry
    /// keeps it. Before: "held by a closure stored in its own property `onEnd`, which captured it
    /// (a retain cycle)".
    func testAClosureCapturingAnObjectWithAnUnownedUnsafeBackPointer_isNotNamedAsTheHolder() {
        let failure = HarnessAssertions.$secondLookFloor.withValue(0.5) {
            expectOneFailure(atLine: #line + 1, containing: "LabHarness found no holder among what it can look into") {
                assertReleased(within: .milliseconds(100)) { () -> RegisteredPlayer in
                    let player = RegisteredPlayer()
                    player.start()
                    return player
                }
            }
        }
        XCTAssertFalse(failure.contains("retain cycle"), failure)
        XCTAssertFalse(failure.contains("onEnd"), failure)
    }

    // MARK: Swift 6's closure types

    /// Before: "LabHarness found no holder …" for a `(@Sendable () -> Void)?` property.
    func testASendableClosureCycle_failsNamingTheClosure() {
        HarnessAssertions.$secondLookFloor.withValue(0.5) {
            expectOneFailure(atLine: #line + 2, containing: "SendableTicker was not released",
                             "held by a closure stored in its own property `onTick`, which captured it (a retain cycle)") {
                assertReleased(within: .milliseconds(100)) { () -> SendableTicker in
                    let ticker = SendableTicker()
                    ticker.start()
                    return ticker
                }
            }
        }
    }

    /// Before: "LabHarness found no holder …" for a `(@MainActor @Sendable () -> Void)?` property.
    func testAMainActorSendableClosureCycle_failsNamingTheClosure() {
        HarnessAssertions.$secondLookFloor.withValue(0.5) {
            expectOneFailure(atLine: #line + 2, containing: "MainActorTicker was not released",
                             "held by a closure stored in its own property `onTick`, which captured it (a retain cycle)") {
                assertReleased(within: .milliseconds(100)) { () -> MainActorTicker in
                    let ticker = MainActorTicker()
                    ticker.start()
                    return ticker
                }
            }
        }
    }

    /// Before: "LabHarness found no holder …" for a closure in an array of closures.
    func testAClosureInAnArrayOfClosures_failsNamingTheElement() {
        HarnessAssertions.$secondLookFloor.withValue(0.5) {
            expectOneFailure(atLine: #line + 2, containing: "ObservedStore was not released",
                             "held by a closure stored in its own property `observers` (element 1), which captured it (a retain cycle)") {
                assertReleased(within: .milliseconds(100)) { () -> ObservedStore in
                    let store = ObservedStore()
                    store.start()
                    return store
                }
            }
        }
    }
}
