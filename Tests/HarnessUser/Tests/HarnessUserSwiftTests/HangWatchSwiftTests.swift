import Foundation
import HarnessUserKit
import LabHarnessTesting
import Testing

extension HarnessUserSwiftTests {
    /// The hang watch: `.hangWatch(after:)` on a test (and, on `HarnessUserSwiftTests`, on every
    /// test of the target).
    @Suite struct HangWatch {
        @Test(.hangWatch(after: 5)) func aQueueFetchUnderTheHangWatch_passes() {
            #expect(QueueFetcher().fetchSynchronously() == "payload")
        }

        /// A leak under a hang watch shorter than the assertion's second look: the look ends a
        /// second before the watch, and the leak is recorded as a leak, saying what holds it.
        @Test(.hangWatch(after: 3)) func aLeakUnderAShortHangWatch_isRecordedAsALeak() {
            HarnessUserSwiftTests.expectOneIssue(atLine: #line + 1, containing: "(cut short by the test's hang watch): 1 strong reference") {
                assertReleased(within: 0.5) { () -> LeakyDownloader in
                    let downloader = LeakyDownloader()
                    downloader.start()
                    return downloader
                }
            }
        }

        /// A test that hangs, run only when asked for (`HARNESS_USER_HANG_PROBE=1`), to measure
        /// a whole run under the trait: see notes/issue-22.md for the command.
        @Test(.enabled(if: ProcessInfo.processInfo.environment["HARNESS_USER_HANG_PROBE"] != nil), .hangWatch(after: 2))
        @MainActor func hungProbe_runsOnlyWhenAskedFor() {
            _ = MainQueueFetcher().fetchSynchronously()  // deadlocks the main queue
        }

        @Test(.stacksAvailable) func aHungFetchUnderTheHangWatch_endsTheRunNamingTheFrame() async {
            // The hung code runs in an exit test: its own process, which the watch ends.
            let start = MonotonicClock.now()
            // The issue the watch records in the child reaches this test (Swift Testing passes an
            // exit test's issues to its parent): it is expected, and checked.
            var result: ExitTest.Result?
            await withKnownIssue {
                result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                    // No test runs in an exit test's process: the trait's watch runs the body instead.
                    try await HangWatchTrait(limit: 2).watch(testName: "the hung fetch") {
                        await MainActor.run { _ = MainQueueFetcher().fetchSynchronously() }  // deadlocks the main queue
                    }
                }
            } matching: { issue in
                issue.comments.contains { $0.rawValue.contains("the hung fetch ran past its hang watch of 2.00 s") }
            }
            let took = MonotonicClock.now() - start
            let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            for text in [
                "ran past its hang watch of 2.00 s; where every thread was:",
                // The library's own frame (`_dispatch_semaphore_wait_slow`) is named when
                // naming has time left: the author's frames come first, so those are checked.
                "← MainQueueFetcher.fetchSynchronously (MainQueueFetchers.swift:21)",
                "ending the process",
            ] {
                #expect(stderr.contains(text), "missing \"\(text)\" in: \(stderr)")
            }
            // Limit, stacks, grace and a process start: seconds, not the run's end (how close to
            // limit + 2 s is measured in notes, not judged here, where a loaded machine can stall).
            #expect(took < 15, "the exit test took \(took) s")
        }
    }
}
