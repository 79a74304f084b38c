import Foundation
import HarnessUserKit
import LabHarnessTesting
import Testing

extension HarnessUserSwiftTests {
    /// A hang fails its test and the run goes on (see `HangContinuesXCTests`): in an ordinary
    /// run `s1`-`s3` are the fixed code; in a copy of this binary started with
    /// `HARNESS_USER_CONTINUE_PROBE` one of them is the bad code, and `s9` reads that copy's
    /// whole output.
    @Suite struct HangContinues {
        static var probe: String? { ProcessInfo.processInfo.environment["HARNESS_USER_CONTINUE_PROBE"] }

        @MainActor @Test func s1_aFetchInAssertCompletes() {
            if Self.probe == "sync" {
                // Deadlocks the main queue.
                assertCompletes(within: 0.5) { _ = MainQueueFetcher().fetchSynchronously() }
            } else {
                #expect(assertCompletes(within: 5) { _ = QueueFetcher().fetchSynchronously() } != nil)
            }
        }

        @MainActor @Test(.hangWatch(after: ["watch", "late"].contains(HangContinues.probe) ? 2 : 30))
        func s2_aFetchUnderTheHangWatch() {
            if Self.probe == "watch" {
                _ = MainQueueFetcher().fetchSynchronously()  // deadlocks: past the 2 s hang watch
            } else if Self.probe == "late" {
                // Overruns the 2 s watch a little and ends while the watch takes the stacks.
                Thread.sleep(forTimeInterval: 2.02)
            } else {
                #expect(QueueFetcher().fetchSynchronously() == "payload")
            }
        }

        @Test func s3_anAsyncOperationInAssertCompletes() async {
            if Self.probe == "async" {
                await assertCompletes(within: 0.5) {
                    await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
                }
            } else {
                let took = await assertCompletes(within: 5) {
                    await withCheckedContinuation { continuation in
                        MainQueuePresenter().present { _ in continuation.resume() }
                    }
                }
                #expect(took != nil)
            }
        }

        /// A parameterized test whose second case hangs: its first case ended under the watch's
        /// trait before, which read as the whole test's end, so the hang was taken for one that
        /// ended in time, and nothing ran after it.
        @Test(.hangWatch(after: HangContinues.probe == "case" ? 2 : 30), arguments: [1, 2])
        func s5_aCaseUnderTheHangWatch(_ n: Int) {
            if Self.probe == "case" && n == 2 {
                Thread.sleep(forTimeInterval: 0.3)  // the first case ends first
                DispatchSemaphore(value: 0).wait()  // never signalled: the hang is the point
            } else {
                #expect(QueueFetcher().fetchSynchronously() == "payload")
            }
        }

        @Test func s4_runsAfterTheOthers() {
            // Keeps the process up past s2 (tests run side by side) while its watch records.
            if Self.probe == "late" { Thread.sleep(forTimeInterval: 3.5) }
            print("HARNESS_USER_CONTINUE_MARK s4 ran")
        }

        /// A watch that fires as its test ends (`late`: s2 overruns its 2 s watch by 20 ms and
        /// ends while the watch takes the stacks): the test fails with the watch's issue, which
        /// was dropped when the test's end stopped the watch's waiter first, and nothing else
        /// is lost.
        @Test(.stacksAvailable) func s8_aWatchFiringAsItsTestEndsFailsIt() throws {
            guard Self.probe == nil else { return }
            let fired = "ran past its hang watch of 2.00 s"
            // A loaded machine can wake the watch only after s2 ended: it then never fires, and
            // s2 passes; such a run sets up no race, so it runs up to three times for one.
            for attempt in 1...3 {
                let (run, output) = try HarnessUserSwiftTests.runCopy(
                    filter: "HangContinues/s[1-4]", environment: ["HARNESS_USER_CONTINUE_PROBE": "late"], budget: 90)
                #expect(output.contains("HARNESS_USER_CONTINUE_MARK s4 ran"), "\(output)")
                #expect(!output.contains("the run goes on without"), "\(output)")
                guard output.contains(fired) || attempt == 3 else { continue }
                let failed = output.contains("Test s2_aFetchUnderTheHangWatch() recorded an issue")
                #expect(failed == output.contains(fired), "failed exactly when the watch fired: \(output)")
                #expect(run.outcome == (failed ? .failed : .completed), "\(run.evidence)\n\(output)")
                break
            }
        }

        @Test(.stacksAvailable) func s9_aHangFailsItsTestAndTheRunGoesOn() throws {
            guard Self.probe == nil else { return }
            let cases: [(probe: String, failing: String, hangs: Bool, failure: [String])] = [
                (
                    "sync", "s1_aFetchInAssertCompletes()", true,
                    [
                        "did not complete within 500 ms",
                        "← MainQueueFetcher.fetchSynchronously (MainQueueFetchers.swift:21)",
                    ]
                ),
                (
                    "watch", "s2_aFetchUnderTheHangWatch()", true,
                    [
                        "ran past its hang watch of 2.00 s; where every thread was:",
                        "← MainQueueFetcher.fetchSynchronously (MainQueueFetchers.swift:21)",
                    ]
                ),
                (
                    "async", "s3_anAsyncOperationInAssertCompletes()", false,
                    ["did not complete within 500 ms; its task was cancelled and abandoned"]
                ),
                (
                    "case", "s5_aCaseUnderTheHangWatch(_:)", true,
                    ["ran past its hang watch of 2.00 s; where every thread was:", "_dispatch_semaphore_wait_slow"]
                ),
            ]
            let all = [
                "s1_aFetchInAssertCompletes()", "s2_aFetchUnderTheHangWatch()",
                "s3_anAsyncOperationInAssertCompletes()", "s4_runsAfterTheOthers()", "s5_aCaseUnderTheHangWatch(_:)",
            ]
            for (probe, failing, hangs, failure) in cases {
                // The suite alone, as `swift test --filter HangContinues` runs its Swift Testing part.
                let (run, output) = try HarnessUserSwiftTests.runCopy(
                    filter: "HangContinues/s[1-5]", environment: ["HARNESS_USER_CONTINUE_PROBE": probe], budget: 90)
                #expect(run.outcome == .failed, "\(probe): \(run.evidence)\n\(output)")
                // The failure is an issue of the failing test, with its stack.
                #expect(output.contains("Test \(failing) recorded an issue"), "\(probe): \(output)")
                for text in failure { #expect(output.contains(text), "\(probe): missing \"\(text)\" in: \(output)") }
                // Every other test ran and passed, before the hang or in the copy after it.
                for other in all where other != failing {
                    // A parameterized test's line: `Test s5_…(_:) with 2 test cases passed`.
                    let passed = ["Test \(other) passed", "Test \(other) with 2 test cases passed"]
                    #expect(passed.contains { output.contains($0) }, "\(probe): \(other) did not pass in: \(output)")
                }
                #expect(output.contains("HARNESS_USER_CONTINUE_MARK s4 ran"), "\(probe): \(output)")
                if hangs {
                    let id = "HarnessUserSwiftTests.HarnessUserSwiftTests/HangContinues/\(failing)"
                    for text in [
                        "LabHarness: the run goes on without \(id)",
                        "LabHarness: summary: Swift Testing test \(id) hung and failed",
                    ] {
                        #expect(output.contains(text), "\(probe): missing \"\(text)\" in: \(output)")
                    }
                }
                #expect(!output.contains("no test to record it"), "\(probe): \(output)")
            }
        }
    }
}
