import Foundation
import HarnessUserKit
import LabHarnessTesting
import Testing

extension HarnessUserSwiftTests {
    /// The three verdicts issue 22 found wrong, each with a bad and a fixed version of the code.
    @Suite struct FalseVerdicts {
        // MARK: An async test's failure is an issue of that test

        @Test func aTidyActorInAnAsyncTest_passes() async {
            let took = await assertReleased(within: 1) { () -> TidyTicker in
                let ticker = TidyTicker()
                await ticker.start()
                return ticker
            }
            #expect(took != nil)
        }

        @Test func aLeakyActorInAnAsyncTest_fails() async {
            await HarnessUserSwiftTests.expectOneIssue(atLine: #line + 2, containing: "LeakyTicker was not released within 200 ms",
                "held by a closure stored in its own property `onTick`, which captured it (a retain cycle)") {
                await assertReleased(within: .milliseconds(200)) { () -> LeakyTicker in
                    let ticker = LeakyTicker()
                    await ticker.start()
                    return ticker
                }
            }
        }

        // MARK: assertCompletes runs the block where the test calls it: on the main actor here
        // (on Linux, Swift Testing's main actor is the main queue, drained by a dispatch worker
        // once the main thread has called dispatchMain(): `Thread.isMainThread` is false there).

        @MainActor @Test func aQueueFetcherOnTheMainActor_passes() {
            dispatchPrecondition(condition: .onQueue(.main))
            #expect(assertCompletes(within: 2) { _ = QueueFetcher().fetchSynchronously() } != nil)
        }

        @Test(.stacksAvailable) func aMainQueueFetcherOnTheMainActor_failsNamingTheFrameAndEndsTheProcess() async {
            // The deadlock the same call makes in the app happens under the assertion too; the
            // process cannot go on, so it runs in an exit test, whose stderr is checked here.
            // The child's failure is an issue of the exit test, which reaches this test with the
            // stack: expected, and checked.
            var result: ExitTest.Result?
            await withKnownIssue {
                result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                    await MainActor.run {
                        _ = assertCompletes(within: 1) { _ = MainQueueFetcher().fetchSynchronously() }
                    }
                }
            } matching: { issue in
                issue.comments.contains { $0.rawValue.contains("← MainQueueFetcher.fetchSynchronously (MainQueueFetchers.swift:21)") }
            }
            let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            for text in ["ending the process"] {
                #expect(stderr.contains(text), "missing \"\(text)\" in: \(stderr)")
            }
        }

        // MARK: @MainActor code: `await assertReleased { … }` reaches the async overload

        @MainActor @Test func modelIsReleased() async {
            await assertReleased(within: 0.5) {
                let model = BrieflyHeldModel()
                model.refresh()
                return model
            }
        }

        @MainActor @Test func aStickyModelOnTheMainActor_fails() async {
            await HarnessUserSwiftTests.expectOneIssue(atLine: #line + 1, containing: "StickyModel was not released within 200 ms") {
                await assertReleased(within: .milliseconds(200)) {
                    let model = StickyModel()
                    model.refresh()
                    return model
                }
            }
        }
    }
}
