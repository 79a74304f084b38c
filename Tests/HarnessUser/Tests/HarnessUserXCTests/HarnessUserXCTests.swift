import Foundation
import HarnessUserKit
import LabHarnessXCTest
import XCTest

/// The harness's XCTest assertions on this package's code. Tests named `…Fails…` check a
/// verdict that must be a failure: the failure XCTest is asked to record is captured (not
/// recorded) and its message, file and line are checked (see `CapturingTestCase`).
final class HarnessUserXCTests: CapturingTestCase {
    // MARK: Leaks

    func testATidyDownloaderIsReleased() {
        assertReleased(within: 1) { () -> TidyDownloader in
            let downloader = TidyDownloader()
            downloader.start()
            return downloader
        }
    }

    func testALeakyDownloaderFailsAtThisLine() {
        expectOneFailure(atLine: #line + 1, containing: "LeakyDownloader was not released within 200 ms") {
            assertReleased(within: .milliseconds(200)) { () -> LeakyDownloader in
                let downloader = LeakyDownloader()
                downloader.start()
                return downloader
            }
        }
    }

    func testALeakyDownloaderStaysAliveOnPurpose() {
        assertNotReleased(after: .milliseconds(100)) { () -> LeakyDownloader in
            let downloader = LeakyDownloader()
            downloader.start()
            return downloader
        }
    }

    // MARK: Threads

    func testAFrugalFetcherAddsAtMostAFewThreads() {
        assertThreadPeak(staysUnder: 4) { FrugalFetcher.fetchAll(count: 16, latency: 0.02) }
    }

    /// The watchdog `assertCompletes` starts is the harness's thread, not the fetcher's.
    func testAFrugalFetcherTimedByAssertCompletes_addsNoThread() {
        assertThreadPeak(staysUnder: 1) {
            assertCompletes(within: 5) { FrugalFetcher.fetchAll(count: 4, latency: 0.02) }
        }
    }

    func testAHungryFetcherFailsCountingItsThreads() {
        // Sixteen threads live 200 ms each: all sixteen are counted, whatever ran before.
        let failure = expectOneFailure(atLine: #line + 1, containing: "the block added ") {
            assertThreadPeak(staysUnder: 16) { HungryFetcher.fetchAll(count: 16, latency: 0.2) }
        }
        XCTAssertGreaterThanOrEqual(threadsAdded(in: failure) ?? 0, 16, failure)
    }

    // MARK: Callbacks

    func testACarefulLoaderCallsBackOnce() {
        assertCalledExactlyOnce(within: 1, grace: .milliseconds(100)) {
            (done: @escaping @Sendable (Result<String, LoadError>) -> Void) in
            CarefulLoader.load(id: -1, completion: done)
        }
    }

    func testASloppyLoaderFailsForCallingTwice() {
        // A grace longer than any machine stall: the second call cannot slip past it.
        expectOneFailure(atLine: #line + 1, containing: "called 2 times") {
            assertCalledExactlyOnce(within: 1, grace: .seconds(1)) {
                (done: @escaping @Sendable (Result<String, LoadError>) -> Void) in
                SloppyLoader.load(id: -1, completion: done)
            }
        }
    }

    // MARK: Main queue

    func testAMainQueueHandlerIsSeenWhileTheTestHoldsTheMainThread() {
        XCTAssertTrue(Thread.isMainThread)
        let call = assertCalledExactlyOnce(within: 1, grace: .milliseconds(20)) {
            (done: @escaping @Sendable (String) -> Void) in
            MainQueuePresenter().present(done)
        }
        XCTAssertEqual(call?.value, "shown")
        XCTAssertEqual(call?.isMainThread, true)
    }

    func testAPresenterHeldByTheMainQueueIsReleased() {
        assertReleased(within: 1) { () -> MainQueuePresenter in
            let presenter = MainQueuePresenter()
            presenter.present { _ in }
            return presenter
        }
    }

    // MARK: Hangs and traps, in a child process

    func testALockOrderInversionDeadlocksInAChild() {
        let run = assertInChildProcess(expecting: .deadlock, budget: 2) {
            print("transferring")
            LockOrder.transferBothWays()
        }
        XCTAssertTrue(run?.stdout.contains("transferring") ?? false)
    }

    func testATrapIsACrashInAChild() {
        let run = assertInChildProcess(expecting: .crashed, budget: 20) {
            let ids: [Int] = []
            print("first id: \(ids[0])")
        }
        #if DEBUG
            XCTAssertTrue(run?.stderr.contains("Index out of range") ?? false, run?.stderr ?? "")
        #else
            // An optimized build traps without a message: the child ends on the trap's signal
            // (an invalid instruction on x86-64, a breakpoint on arm64), before its print.
            XCTAssertTrue([SIGILL, SIGTRAP].contains(run?.signal ?? 0), run?.evidence ?? "")
            XCTAssertFalse(run?.stdout.contains("first id") ?? true)
        #endif
    }

    /// Bad: renders that hold every thread of the cooperative pool keep the wait from waking
    /// until they are done; found done then, 0.6 s into a 0.2 s budget, they still overran, and
    /// the failure says the pool was held meanwhile.
    func testThumbnailsThatHoldEveryPoolThread_failAsAnOverrun() async {
        await expectOneFailure(
            atLine: #line + 2, containing: "did not complete within 200 ms", "the cooperative pool ran no new task"
        ) {
            await assertCompletes(within: 0.2) {
                await BlockingThumbnailer.renderAll(count: ProcessInfo.processInfo.activeProcessorCount, cost: 0.6)
            }
        }
    }

    /// Bad: a quick, correct lookup beside other code that blocks every thread of the pool for a
    /// second never gets a thread within its budget. The failure does not blame the lookup
    /// alone: it says the pool ran no new task meanwhile, and shows the frames that held it.
    func testAQuickLookupBesideNeighboursThatHoldThePool_failsNamingThem() async throws {
        try skipWithoutStacks()
        PoolNeighbours.holdEveryPoolThread(for: 1)
        await expectOneFailure(
            atLine: #line + 3, containing: "did not complete within 300 ms", "the cooperative pool ran no new task",
            "PoolNeighbours.hold"
        ) {
            await assertCompletes(within: 0.3) { _ = await QuickLookup.answer() }
        }
    }

    /// Fixed, in async code: a save whose completion takes no value calls back once.
    func testASaveCallsBackOnceInAsyncCode() async {
        let call = await assertCalledExactlyOnce(within: 1, grace: .milliseconds(200)) { done in
            Savers.save(then: done)
        }
        XCTAssertNotNil(call)
    }

    /// Bad, in async code: a retry path calls the completion again.
    func testARetryingSaveFailsForCallingTwiceInAsyncCode() async {
        await expectOneFailure(atLine: #line + 1, containing: "called 2 times") {
            await assertCalledExactlyOnce(within: 1, grace: .seconds(1)) { done in Savers.saveRetrying(then: done) }
        }
    }

    /// Fixed: with nothing holding the pool, the same lookup passes.
    func testAQuickLookupWithThePoolFree_passes() async {
        let took = await assertCompletes(within: 0.3) { _ = await QuickLookup.answer() }
        XCTAssertNotNil(took)
    }
}
