import Foundation
import HarnessUserKit
import LabHarnessTesting
import Testing

extension HarnessUserSwiftTests {
    /// Where a failure says the code was (see `StackMessageXCTests`).
    @Suite struct StackMessages {
        @Test func aPatientClientWithAShortTimeout_passes() {
            #expect(assertCompletes(within: 5) { _ = PatientClient(timeout: 0.01).request() } != nil)
        }

        /// Before: `1 thread (dispatch worker): in syscall`.
        @Test(.stacksAvailable) func aPatientClientPastTheBudget_failsNamingItsCallerDownToTheTest() {
            // The request returns late, before the process would end.
            HarnessUserSwiftTests.expectOneIssue(atLine: #line + 2,
                                                 containing: "in DispatchGroup.wait ← PatientClient.waitForReply (Fetchers.swift:45) ← PatientClient.request (Fetchers.swift:39)") {
                assertCompletes(within: 0.2) { _ = PatientClient(timeout: 0.9).request() }
            }
        }

        /// A thread per request: the threads grouped by where they wait.
        @Test(.stacksAvailable) func aHungryFetcher_isRecordedGroupingItsThreadsByWhereTheyWait() {
            HarnessUserSwiftTests.expectOneIssue(atLine: #line + 2,
                                                 containing: "where the new threads were when 16 had appeared:") {
                assertThreadPeak(staysUnder: 16) { HungryFetcher.fetchAll(count: 16, latency: 0.5) }
            }
        }

        @Test func aCarefulLedgerUpdate_passes() {
            #expect(assertCompletes(within: 5) { CarefulLedger().record(1) } != nil)
        }

        /// A lock taken twice never returns: the process ends, in an exit test, whose failure
        /// reaches this test as an issue with every frame down to the exit test's body.
        @Test(.stacksAvailable) func aReentrantLedgerUpdate_failsShowingTheFrameThatHoldsTheLock() async {
            // An optimized build may fold the test's closure with an identical one (`merged …`).
            #if DEBUG
                let caller = "closure in "
            #else
                let caller = ""
            #endif
            let frames = "← ReentrantLedger.total (Fetchers.swift:69) ← ReentrantLedger.notifyObservers (Fetchers.swift:65) "
                + "← ReentrantLedger.record (Fetchers.swift:61) ← " + caller
            await withKnownIssue {
                await #expect(processExitsWith: .failure) {
                    // The synchronous form, in a function of its own: the exit test's body is async.
                    func record() { assertCompletes(within: 0.5) { ReentrantLedger().record(1) } }
                    record()
                }
            } matching: { issue in
                issue.comments.contains { $0.rawValue.contains("did not complete within 500 ms") && $0.rawValue.contains(frames) }
            }
        }
    }
}
