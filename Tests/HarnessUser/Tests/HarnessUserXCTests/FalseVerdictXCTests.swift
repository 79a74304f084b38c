import Foundation
import HarnessUserKit
import LabHarnessXCTest
import XCTest

/// The three verdicts issue 22 found wrong, each with a bad and a fixed version of the code.
final class FalseVerdictXCTests: CapturingTestCase {
    // MARK: A failure in an async test that runs first is recorded against that test

    /// Set in a copy of this test binary that runs one probe test alone: its first assertion
    /// is then the first of the process, before the harness has seen any test start.
    static let probeVariable = "HARNESS_USER_FIRST_ASYNC_PROBE"

    func testALeakyActorInTheFirstAsyncTest_failsAgainstThatTest() async throws {
        if ProcessInfo.processInfo.environment[Self.probeVariable] != nil {
            await assertReleased(within: .milliseconds(200)) { () -> LeakyTicker in
                let ticker = LeakyTicker()
                await ticker.start()
                return ticker
            }
            return
        }
        let run = try runAloneInAChild(#function, environment: [Self.probeVariable: "1"])
        XCTAssertEqual(run.outcome, .failed, run.evidence)
        let log = xctestLog(run)
        XCTAssertTrue(log.contains("Executed 1 test, with 1 failure"), log)
        XCTAssertTrue(log.contains("testALeakyActorInTheFirstAsyncTest_failsAgainstThatTest : failed - LeakyTicker was not released"), log)
        XCTAssertTrue(log.contains("held by a closure stored in its own property `onTick`, which captured it (a retain cycle)"), log)
        XCTAssertFalse(run.stderr.contains("no test to record it"), run.stderr)
    }

    func testATidyActorInTheFirstAsyncTest_passes() async throws {
        if ProcessInfo.processInfo.environment[Self.probeVariable] != nil {
            await assertReleased(within: 1) { () -> TidyTicker in
                let ticker = TidyTicker()
                await ticker.start()
                return ticker
            }
            return
        }
        let run = try runAloneInAChild(#function, environment: [Self.probeVariable: "1"])
        XCTAssertEqual(run.outcome, .completed, run.evidence + run.stdout + run.stderr)
        let log = xctestLog(run)
        XCTAssertTrue(log.contains("Executed 1 test, with 0 failures"), log)
    }

    /// The child logs these tests read are read in Linux's form (`xctestLog`): Apple's XCTest
    /// names a test as an Objective-C method, `-[Module.Class test]`, in the lines below.
    func testAMacsXCTestLogReadsAsLinuxs() {
        let mac = """
            Test Case '-[HarnessUserXCTests.FalseVerdictXCTests testATidyActorInTheFirstAsyncTest_passes]' passed (0.012 seconds).
            /w/F.swift:16: error: -[HarnessUserXCTests.FalseVerdictXCTests testALeakyActorInTheFirstAsyncTest_failsAgainstThatTest] : failed - LeakyTicker was not released
            Test Case '-[HarnessUserXCTests.FalseVerdictXCTests testATidyActorInTheFirstAsyncTest_passesWithCompletionHandler:]' passed (0.012 seconds).
            Test Case '-[HarnessUserXCTests.FalseVerdictXCTests testWithCompletionHandler]' passed (0.001 seconds).
            """
        XCTAssertEqual(Self.linuxTestNames(in: mac), """
            Test Case 'FalseVerdictXCTests.testATidyActorInTheFirstAsyncTest_passes' passed (0.012 seconds).
            /w/F.swift:16: error: FalseVerdictXCTests.testALeakyActorInTheFirstAsyncTest_failsAgainstThatTest : failed - LeakyTicker was not released
            Test Case 'FalseVerdictXCTests.testATidyActorInTheFirstAsyncTest_passes' passed (0.012 seconds).
            Test Case 'FalseVerdictXCTests.testWithCompletionHandler' passed (0.001 seconds).
            """)
    }

    // MARK: assertCompletes runs the block on the test's thread, the main thread here

    func testAQueueFetcherOnTheMainThread_passes() {
        XCTAssertTrue(Thread.isMainThread)
        let took = assertCompletes(within: 2) { _ = QueueFetcher().fetchSynchronously() }
        XCTAssertNotNil(took)
    }

    func testAMainQueueFetcherOnTheMainThread_failsNamingTheFrameAndEndsTheProcess() throws {
        try skipWithoutStacks()
        // The deadlock the same call makes in the app happens under the assertion too; the
        // process cannot go on, so it runs in a child, whose output is checked here.
        let run = assertInChildProcess(expecting: .failed, budget: 20) {
            assertCompletes(within: 1) { _ = MainQueueFetcher().fetchSynchronously() }
        }
        let output = (run?.stdout ?? "") + (run?.stderr ?? "")
        for text in ["did not complete within 1.00 s", "it is still stuck", "ending the process",
                     "(main thread): in ", "← MainQueueFetcher.fetchSynchronously (MainQueueFetchers.swift:21)"] {
            XCTAssertTrue(output.contains(text), "missing \"\(text)\" in: \(output)")
        }
        // Budget 1 s, grace 1 s, a stack in under a second: the child ends well before its own budget.
        XCTAssertLessThan(run?.wall ?? 99, 15)
    }

    func testABlockThatReturnsLate_failsWithItsStackAndTheTestGoesOn() {
        expectOneFailure(atLine: #line + 1, containing: "did not complete within 200 ms", "when the budget ran out its thread was", "(main thread)") {
            assertCompletes(within: .milliseconds(200)) { Thread.sleep(forTimeInterval: 0.6) }
        }
    }

    // MARK: @MainActor code: the async overload, which leaves the main actor free

    @MainActor func testABrieflyHeldModelOnTheMainActor_passes() async {
        let took = await assertReleased(within: 1) {
            let model = BrieflyHeldModel()
            model.refresh()
            return model
        }
        XCTAssertNotNil(took)
    }

    @MainActor func testAStickyModelOnTheMainActor_fails() async {
        await expectOneFailure(atLine: #line + 1, containing: "StickyModel was not released within 200 ms") {
            await assertReleased(within: .milliseconds(200)) {
                let model = StickyModel()
                model.refresh()
                return model
            }
        }
    }
}

/// A hang in a child process names where every thread of the child was.
final class ChildHangXCTests: CapturingTestCase {
    func testAQueueFetcherInAChild_passes() {
        assertInChildProcess(expecting: .completed, budget: 20) { _ = QueueFetcher().fetchSynchronously() }
    }

    func testAMainQueueFetcherInAChild_failsNamingWhereItsThreadsWere() throws {
        try skipWithoutStacks()
        expectOneFailure(atLine: #line + 3, containing: "expected the child to end completed, it ended deadlock",
                         "where its threads were when it was killed", "1 thread (main thread): in ",
                         "MainQueueFetcher.fetchSynchronously (MainQueueFetchers.swift:21)") {
            assertInChildProcess(expecting: .completed, budget: 2) { _ = MainQueueFetcher().fetchSynchronously() }
        }
    }

    func testALockOrderDeadlockInAChild_passesAndItsStacksNameBothThreads() throws {
        try skipWithoutStacks()
        let run = assertInChildProcess(expecting: .deadlock, budget: 2) { LockOrder.transferBothWays() }
        let lines = run.map { HangStacks.lines(of: $0) } ?? []
        XCTAssertTrue(lines.contains { $0.hasPrefix("2 threads") && $0.contains("LockOrder.transferBothWays") }, "\(lines)")
        XCTAssertTrue(lines.contains { $0.hasPrefix("1 thread (main thread)") && $0.contains("LockOrder.transferBothWays") }, "\(lines)")
    }
}
