import Foundation
import HarnessUserKit
import LabHarnessXCTest
import XCTest

/// A hang fails its test and the run goes on: the tests after it still run and report, in the
/// same output, and the run fails naming the hung test. Each `test1`-`test3` is the fixed code
/// in an ordinary run; in a copy of this binary started with `HARNESS_USER_CONTINUE_PROBE` one
/// of them is the bad code (`sync`: stuck in `assertCompletes`; `watch`: stuck past the hang
/// watch; `unobserved`: stuck in `assertCompletes` with no hang watch installed; `async`: an
/// async `assertCompletes` whose operation never ends), and `test9` reads
/// that copy's whole output.
final class HangContinuesXCTests: CapturingTestCase {
    static let probeVariable = "HARNESS_USER_CONTINUE_PROBE"
    static var probe: String? { ProcessInfo.processInfo.environment[probeVariable] }

    override class func setUp() {
        super.setUp()
        // `unobserved`: no hang watch, so the harness's observer comes in with the first
        // assertion, during the hung test; the stuck thread's stack names the test instead.
        let short = ["watch", "late", "teardown"].contains(probe)
        if probe != "unobserved" { HangWatchObserver.install(after: short ? 2 : 30) }
    }

    func test1_aFetchInAssertCompletes() {
        if Self.probe == "sync" || Self.probe == "unobserved" {
            assertCompletes(within: 0.5) { _ = MainQueueFetcher().fetchSynchronously() }  // deadlocks the main thread
        } else {
            XCTAssertNotNil(assertCompletes(within: 5) { _ = QueueFetcher().fetchSynchronously() })
        }
    }

    func test2_aFetchUnderTheHangWatch() {
        if Self.probe == "watch" {
            _ = MainQueueFetcher().fetchSynchronously()  // deadlocks: past the 2 s hang watch
        } else if Self.probe == "late" {
            // Overruns the 2 s watch a little and ends while the watch takes the stacks.
            Thread.sleep(forTimeInterval: 2.02)
        } else {
            XCTAssertEqual(QueueFetcher().fetchSynchronously(), "payload")
        }
    }

    func test3_anAsyncOperationInAssertCompletes() async {
        if Self.probe == "async" {
            // Never resumed: the assertion fails at its budget, abandons the task, and the test ends.
            await assertCompletes(within: 0.5) {
                await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
            }
        } else {
            let took = await assertCompletes(within: 5) {
                await withCheckedContinuation { continuation in
                    MainQueuePresenter().present { _ in continuation.resume() }
                }
            }
            XCTAssertNotNil(took)
        }
    }

    override func tearDown() {
        // Within the watch's limit until here; the watch fires while XCTest closes the test.
        if Self.probe == "teardown", name.contains("test2_") { Thread.sleep(forTimeInterval: 2.5) }
        super.tearDown()
    }

    func test4_runsAfterTheOthers() {
        // Keeps the process up while a watch that fired as test2 ended records its failure.
        if Self.probe == "late" { Thread.sleep(forTimeInterval: 1.5) }
        print("HARNESS_USER_CONTINUE_MARK test4 ran")
    }

    /// A watch that fires as its test ends: XCTest closes a test before it tells observers, and
    /// a failure recorded on a closed test traps the process (the tests after it were lost).
    /// `late`: test2 overruns its 2 s watch by 20 ms and ends while the watch takes the stacks;
    /// the failure lands on test2, and the tests after it run. `teardown`: test2's `tearDown()`
    /// runs past the watch, when XCTest takes no more failures for the test; stderr says so and
    /// the run exits 1.
    func test8_aWatchFiringAsItsTestEndsCostsNoLaterTest() throws {
        guard Self.probe == nil else { return }
        try skipWithoutStacks()
        let fired = "HangContinuesXCTests.test2_aFetchUnderTheHangWatch ran past its hang watch of 2.00 s"
        // A loaded machine can wake the watch only after test2 ended: it then never fires, and
        // test2 passes; such a run sets up no race, so `late` runs up to three times for one.
        for attempt in 1...3 {
            let output = try runProbe("late")
            XCTAssertFalse(output.run.contains("Invalid attempt to record a failure"), output.run)
            XCTAssertTrue(output.run.contains("HARNESS_USER_CONTINUE_MARK test4 ran"), output.run)
            guard output.run.contains(fired) || attempt == 3 else { continue }
            let failed = output.run.contains("Test Case 'HangContinuesXCTests.test2_aFetchUnderTheHangWatch' failed")
            XCTAssertEqual(failed, output.run.contains(fired), "failed exactly when the watch fired: \(output.run)")
            XCTAssertEqual(output.outcome, failed ? .failed : .completed, output.run)
            break
        }
        let teardown = try runProbe("teardown")
        XCTAssertEqual(teardown.outcome, .failed, teardown.run)
        let late = "XCTest had begun to close the test (its teardown)"
        for text in [fired, late, "HARNESS_USER_CONTINUE_MARK test4 ran"] {
            XCTAssertTrue(teardown.run.contains(text), "missing \"\(text)\" in: \(teardown.run)")
        }
        XCTAssertFalse(teardown.run.contains("Invalid attempt to record a failure"), teardown.run)
    }

    /// This class's tests in a copy of this binary started with `probe`: how it ended, and its output.
    private func runProbe(_ probe: String) throws -> (outcome: ChildOutcome, run: String) {
        let command = TestBinaryRelaunch.command(testClass: String(reflecting: Self.self), method: "")
        let run = try ChildProcess.run(
            ChildSpec(
                executable: command.executable, arguments: ["HarnessUserXCTests.HangContinuesXCTests"],
                environment: [Self.probeVariable: probe], budget: 90))
        return (run.outcome, xctestLog(run))
    }

    func test9_aHangFailsItsTestAndTheRunGoesOn() throws {
        guard Self.probe == nil else { return }
        try skipWithoutStacks()
        let hung = "HarnessUserXCTests.HangContinuesXCTests/"
        // Each probe: the failing test, whether it hangs the process, what its failure says.
        let cases: [(probe: String, failing: String, hangs: Bool, failure: [String])] = [
            (
                "sync", "test1_aFetchInAssertCompletes", true,
                [
                    "did not complete within 500 ms",
                    "← MainQueueFetcher.fetchSynchronously (MainQueueFetchers.swift:21)",
                ]
            ),
            (
                "watch", "test2_aFetchUnderTheHangWatch", true,
                [
                    "ran past its hang watch of 2.00 s; where every thread was:",
                    "← MainQueueFetcher.fetchSynchronously (MainQueueFetchers.swift:21)",
                ]
            ),
            (
                "unobserved", "test1_aFetchInAssertCompletes", true,
                [
                    "did not complete within 500 ms",
                    "← MainQueueFetcher.fetchSynchronously (MainQueueFetchers.swift:21)",
                ]
            ),
            (
                "async", "test3_anAsyncOperationInAssertCompletes", false,
                ["did not complete within 500 ms; its task was cancelled and abandoned"]
            ),
        ]
        for (probe, failing, hangs, failure) in cases {
            // The whole class, as `swift test --filter HangContinuesXCTests` runs it.
            let (outcome, output) = try runProbe(probe)
            XCTAssertEqual(outcome, .failed, "\(probe): \(output)")
            for text in failure {
                XCTAssertTrue(output.contains(text), "\(probe): missing \"\(text)\" in: \(output)")
            }
            // The tests after the failing one ran and reported, in the same output.
            for later in [
                "test2_aFetchUnderTheHangWatch", "test3_anAsyncOperationInAssertCompletes", "test4_runsAfterTheOthers",
            ]
            where later > failing {
                XCTAssertTrue(
                    output.contains("Test Case 'HangContinuesXCTests.\(later)' passed"),
                    "\(probe): \(later) did not pass in: \(output)")
            }
            XCTAssertTrue(output.contains("HARNESS_USER_CONTINUE_MARK test4 ran"), "\(probe): \(output)")
            XCTAssertTrue(
                output.contains("HangContinuesXCTests.\(failing) : "),
                "\(probe): the failure is not on \(failing): \(output)")
            if hangs {
                for text in [
                    "LabHarness: the run goes on without \(hung)\(failing)",
                    "LabHarness: summary: XCTest test \(hung)\(failing) hung and failed",
                ] {
                    XCTAssertTrue(output.contains(text), "\(probe): missing \"\(text)\" in: \(output)")
                }
            } else {
                // Nothing hangs the process: XCTest's own summary counts the failure.
                XCTAssertTrue(output.contains("with 1 failure"), "\(probe): \(output)")
            }
        }
    }
}
