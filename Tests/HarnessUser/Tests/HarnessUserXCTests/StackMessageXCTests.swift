import Foundation
import HarnessUserKit
import LabHarnessXCTest
import XCTest

/// Where a failure says the code was: private methods by name, every frame of the author's
/// code down to the test with its line, a timed wait unwound to its caller.
final class StackMessageXCTests: CapturingTestCase {
    /// Fixed: a reply within the budget.
    func testAPatientClientWithAShortTimeout_passes() {
        XCTAssertNotNil(assertCompletes(within: 5) { _ = PatientClient(timeout: 0.01).request() })
    }

    /// Bad: the wait (`DispatchGroup.wait(timeout:)`, inside a private method) outlasts the
    /// budget; the failure names the private method, its caller and this test, each with a line.
    func testAPatientClientPastTheBudget_failsNamingEveryFrameDownToTheTest() throws {
        try skipWithoutStacks()
        // Before: `1 thread (main thread): in syscall`, the unwinder stopped in libswiftDispatch.
        // The request returns late, before the process would end.
        let message = expectOneFailure(atLine: #line + 2, containing: "did not complete within 200 ms",
                                       "(main thread): in DispatchGroup.wait ← PatientClient.waitForReply (Fetchers.swift:45) ← PatientClient.request (Fetchers.swift:39)") {
            assertCompletes(within: 0.2) { _ = PatientClient(timeout: 0.9).request() }
        }
        XCTAssertTrue(message.contains("StackMessageXCTests.testAPatientClientPastTheBudget_failsNamingEveryFrameDownToTheTest (StackMessageXCTests.swift:"),
                      message)
    }

    static let probeVariable = "HARNESS_USER_STACK_PROBE"

    /// Fixed: the ledger's update notifies without taking the lock again.
    func testACarefulLedgerUpdate_passes() {
        XCTAssertNotNil(assertCompletes(within: 5) { CarefulLedger().record(1) })
    }

    /// Bad: a lock taken twice on one thread never returns, so the process ends (in a copy of
    /// this binary); its failure names the private and fileprivate methods, the frame that
    /// already holds the lock, and this test, each with its line.
    func testAReentrantLedgerUpdate_failsShowingTheFrameThatHoldsTheLock() throws {
        if ProcessInfo.processInfo.environment[Self.probeVariable] != nil {
            assertCompletes(within: 0.5) { ReentrantLedger().record(1) }
            return
        }
        try skipWithoutStacks()
        let run = try runAloneInAChild(#function, environment: [Self.probeVariable: "1"])
        let output = xctestLog(run)
        XCTAssertEqual(run.outcome, .failed, run.evidence)
        // Before: `ReentrantLedger.(total in _…)` read `ReentrantLedger.`, and only the first
        // of four frames had a line.
        // In an optimized build, the private methods inlined into `record` are named from the
        // debug information; the test's closure may be folded with an identical one (`merged …`,
        // named after either), and folded code has no line.
        #if DEBUG
            let caller = "closure in StackMessageXCTests.testAReentrantLedgerUpdate_failsShowingTheFrameThatHoldsTheLock (StackMessageXCTests.swift:"
        #else
            let caller = ""
        #endif
        for text in ["StackMessageXCTests.testAReentrantLedgerUpdate_failsShowingTheFrameThatHoldsTheLock : failed - did not complete within 500 ms",
                     "← ReentrantLedger.total (Fetchers.swift:69) ← ReentrantLedger.notifyObservers (Fetchers.swift:65) "
                        + "← ReentrantLedger.record (Fetchers.swift:61) ← " + caller,
                     "← StackMessageXCTests.testAReentrantLedgerUpdate_failsShowingTheFrameThatHoldsTheLock (StackMessageXCTests.swift:"] {
            XCTAssertTrue(output.contains(text), "missing \"\(text)\" in: \(output)")
        }
    }

    /// Bad: a thread per request. Before, the failure named the threads by the 15 bytes of name
    /// they inherit from their creator; now it groups them by where they wait.
    func testAHungryFetcher_failsGroupingItsThreadsByWhereTheyWait() throws {
        try skipWithoutStacks()
        let failure = expectOneFailure(atLine: #line + 2, containing: "where the new threads were when 16 had appeared:",
                                       "← closure in HungryFetcher.fetchAll (Fetchers.swift:12)") {
            assertThreadPeak(staysUnder: 16) { HungryFetcher.fetchAll(count: 16, latency: 0.5) }
        }
        XCTAssertGreaterThanOrEqual(threadsAdded(in: failure) ?? 0, 16, failure)
    }

    /// Fixed: one serial queue.
    func testAFrugalFetcher_staysUnderTheLimit() {
        let recorder = LabHarness.RecordingReporter()
        assertThreadPeak(staysUnder: 16, reporter: recorder.reporter) {
            FrugalFetcher.fetchAll(count: 16, latency: 0.02)
        }
        XCTAssertEqual(recorder.messages, [])
    }
}
