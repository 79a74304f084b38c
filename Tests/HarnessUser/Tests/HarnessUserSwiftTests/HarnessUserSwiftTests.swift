import Foundation
import HarnessUserKit
import LabHarnessTesting
import Synchronization
import Testing

/// The harness's Swift Testing assertions and traits on this package's code. Verdicts that must
/// be failures run inside `withKnownIssue`, whose matcher checks the issue's text and that its
/// source location is the user's own line.
///
/// Thread counts are process-wide and Swift Testing runs suites in parallel, so the whole
/// target is one `.serialized` suite (its nested suites included): no other test's threads
/// can land in a thread test's count.
@Suite(.serialized, .hangWatch(after: 30)) struct HarnessUserSwiftTests {
    /// Runs `body`, expecting one issue at `line` of the caller's file that contains every one
    /// of `texts`.
    static func expectOneIssue(atLine line: Int, containing texts: String...,
                               sourceLocation: SourceLocation = #_sourceLocation, _ body: () -> Void) {
        let matched = Mutex(0)
        withKnownIssue {
            body()
        } matching: { issue in
            let here = issue.sourceLocation?.fileID == sourceLocation.fileID && issue.sourceLocation?.line == line
            let says = issue.comments.contains { comment in texts.allSatisfy { comment.rawValue.contains($0) } }
            if here && says { matched.withLock { $0 += 1 } }
            return here && says
        }
        #expect(matched.withLock { $0 } == 1, sourceLocation: sourceLocation)
    }

    /// This test binary's Swift Testing tests that match `filter`, run in a copy of it with
    /// `environment` (a probe's setting): how the copy ended, and its whole output.
    static func runCopy(
        filter: String, environment: [String: String], budget: Double
    ) throws -> (run: ChildRun, output: String) {
        let run = try ChildProcess.run(
            ChildSpec(
                executable: ChildProcess.currentExecutablePath(),
                arguments: ["--testing-library", "swift-testing", "--filter", filter],
                environment: environment, budget: budget))
        return (run, run.stdout + run.stderr)
    }

    /// `expectOneIssue` for an async body, on the caller's actor.
    static func expectOneIssue(atLine line: Int, containing texts: String...,
                               sourceLocation: SourceLocation = #_sourceLocation,
                               isolation: isolated (any Actor)? = #isolation, _ body: () async -> Void) async {
        let matched = Mutex(0)
        await withKnownIssue {
            await body()
        } matching: { issue in
            let here = issue.sourceLocation?.fileID == sourceLocation.fileID && issue.sourceLocation?.line == line
            let says = issue.comments.contains { comment in texts.allSatisfy { comment.rawValue.contains($0) } }
            if here && says { matched.withLock { $0 += 1 } }
            return here && says
        }
        #expect(matched.withLock { $0 } == 1, sourceLocation: sourceLocation)
    }

    @Test func aTidyDownloaderIsReleased() {
        #expect(assertReleased(within: 1) { () -> TidyDownloader in
            let downloader = TidyDownloader()
            downloader.start()
            return downloader
        } != nil)
    }

    @Test func aLeakyDownloaderIsRecordedAtThisLine() {
        Self.expectOneIssue(atLine: #line + 1, containing: "LeakyDownloader was not released within 200 ms") {
            assertReleased(within: .milliseconds(200)) { () -> LeakyDownloader in
                let downloader = LeakyDownloader()
                downloader.start()
                return downloader
            }
        }
    }

    @Test(.leakChecked) func aTidyDownloaderPassesTheLeakCheck() {
        LeakChecked.track(TidyDownloader(), "tidy").start()
    }

    @Test func aCarefulLoaderCallsBackOnce() {
        assertCalledExactlyOnce(within: 1, grace: .milliseconds(100)) {
            (done: @escaping @Sendable (Result<String, LoadError>) -> Void) in
            CarefulLoader.load(id: 3, completion: done)
        }
    }

    /// Fixed, in async code: a save whose completion takes no value calls back once.
    @Test func aSaveCallsBackOnceInAsyncCode() async {
        let call = await assertCalledExactlyOnce(within: 1, grace: .milliseconds(200)) { done in
            Savers.save(then: done)
        }
        #expect(call != nil)
    }

    /// Bad, in async code: a retry path calls the completion again.
    @Test func aRetryingSaveIsRecordedForCallingTwiceInAsyncCode() async {
        await Self.expectOneIssue(atLine: #line + 1, containing: "called 2 times") {
            await assertCalledExactlyOnce(within: 1, grace: .seconds(1)) { done in Savers.saveRetrying(then: done) }
        }
    }

    @Test func aSloppyLoaderIsRecordedForCallingTwice() {
        // A grace longer than any machine stall: the second call cannot slip past it.
        Self.expectOneIssue(atLine: #line + 1, containing: "called 2 times") {
            assertCalledExactlyOnce(within: 1, grace: .seconds(1)) {
                (done: @escaping @Sendable (Result<String, LoadError>) -> Void) in
                SloppyLoader.load(id: -1, completion: done)
            }
        }
    }

    @Test func aMainQueueHandlerArrives() async {
        let took = await assertCompletes(within: 2) {
            await withCheckedContinuation { continuation in
                MainQueuePresenter().present { _ in continuation.resume() }
            }
        }
        #expect(took != nil)
    }

    /// Bad: renders that hold every thread of the cooperative pool keep the wait from waking
    /// until they are done; found done then, 0.6 s into a 0.2 s budget, they still overran, and
    /// the failure says the pool was held meanwhile.
    @Test func thumbnailsThatHoldEveryPoolThread_areRecordedAsAnOverrun() async {
        await HarnessUserSwiftTests.expectOneIssue(
            atLine: #line + 2, containing: "did not complete within 200 ms", "the cooperative pool ran no new task"
        ) {
            await assertCompletes(within: 0.2) {
                await BlockingThumbnailer.renderAll(count: ProcessInfo.processInfo.activeProcessorCount, cost: 0.6)
            }
        }
    }

    /// Bad: a quick, correct lookup beside other code that blocks every thread of the pool for a
    /// second (another test's synchronous wait, say) never gets a thread within its budget. The
    /// failure does not blame the lookup alone: it says the pool ran no new task meanwhile, and
    /// shows the frames that held its threads.
    @Test(.stacksAvailable) func aQuickLookupBesideNeighboursThatHoldThePool_failsNamingThem() async {
        PoolNeighbours.holdEveryPoolThread(for: 1)
        await HarnessUserSwiftTests.expectOneIssue(
            atLine: #line + 3, containing: "did not complete within 300 ms", "the cooperative pool ran no new task",
            "PoolNeighbours.hold"
        ) {
            await assertCompletes(within: 0.3) { _ = await QuickLookup.answer() }
        }
    }

    /// Fixed: with nothing holding the pool, the same lookup passes.
    @Test func aQuickLookupWithThePoolFree_passes() async {
        #expect(await assertCompletes(within: 0.3) { _ = await QuickLookup.answer() } != nil)
    }

    @Test func aTrapEndsAnExitTestWithAFailure() async {
        await #expect(processExitsWith: .failure) {
            let ids: [Int] = []
            print(ids[0])
        }
    }
}

extension HarnessUserSwiftTests {
    /// The thread tests, serialized with everything else in the target.
    @Suite struct Threads {
        @Test(.threadBudget(added: 4)) func aFrugalFetcherStaysInItsBudget() {
            FrugalFetcher.fetchAll(count: 16, latency: 0.02)
        }

        /// The watchdog `assertCompletes` starts is the harness's thread, not the fetcher's.
        @Test(.threadBudget(added: 1)) func aFrugalFetcherTimedByAssertCompletes_addsNoThread() {
            assertCompletes(within: 5) { FrugalFetcher.fetchAll(count: 4, latency: 0.02) }
        }

        @Test func aHungryFetcherIsRecordedCountingItsThreads() {
            HarnessUserSwiftTests.expectOneIssue(atLine: #line + 1, containing: "the limit was under 16") {
                assertThreadPeak(staysUnder: 16) { HungryFetcher.fetchAll(count: 16, latency: 0.2) }
            }
        }
    }
}

extension Trait where Self == ConditionTrait {
    /// For a test whose verdict reads stack frames: skipped, with the harness's reason, where this
    /// platform takes none (`StackCapture.unavailableReason`: Darwin today).
    static var stacksAvailable: Self {
        .enabled(if: StackCapture.unavailableReason == nil, Comment(rawValue: StackCapture.unavailableReason ?? "stacks are taken here"))
    }
}
