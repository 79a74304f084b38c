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
        if probe != "unobserved" { HangWatchObserver.install(after: probe == "watch" ? 2 : 30) }
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

    func test4_runsAfterTheOthers() {
        print("HARNESS_USER_CONTINUE_MARK test4 ran")
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
            let command = TestBinaryRelaunch.command(testClass: String(reflecting: Self.self), method: "")
            // The whole class, as `swift test --filter HangContinuesXCTests` runs it.
            let run = try ChildProcess.run(
                ChildSpec(
                    executable: command.executable, arguments: ["HarnessUserXCTests.HangContinuesXCTests"],
                    environment: [Self.probeVariable: probe], budget: 90))
            let output = xctestLog(run)
            XCTAssertEqual(run.outcome, .failed, "\(probe): \(run.evidence)\n\(output)")
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
