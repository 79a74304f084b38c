import Foundation
import HarnessUserKit
import LabHarnessTesting
import Synchronization
import Testing

extension HarnessUserSwiftTests {
    /// A second call or a trap after the body returns is still seen (see `SettleXCTests`).
    @Suite struct Settle {
        @Test func aRacingLoader_failsTheExactlyOnceCheck() {
            HarnessUserSwiftTests.expectOneIssue(atLine: #line + 1, containing: "the callback was called 2 times") {
                assertCalledExactlyOnce(within: 1) { (done: @escaping @Sendable (Result<String, LoadError>) -> Void) in
                    RacingLoader(replyDelay: 0.3).load(completion: done)
                }
            }
        }

        @Test func aGuardedLoader_passesSayingHowLongItWatched() {
            let notes = Mutex<[String]>([])
            let reporter = FailureReporter { message, _ in Issue.record(Comment(rawValue: message)) }
            let site = FailureSite(fileID: #fileID, filePath: #filePath, line: #line, column: #column)
            var call = AssertionCall(reporter: reporter, site: site)
            call.note = { text, _ in notes.withLock { $0.append(text) } }
            let first = HarnessAssertions.calledExactlyOnce(within: 1, grace: HarnessAssertions.defaultGrace, call) {
                (done: @escaping @Sendable (Result<String, LoadError>) -> Void) in
                GuardedLoader(replyDelay: 0.3).load(completion: done)
            }
            #expect(first != nil)
            let said = notes.withLock { $0 }
            #expect(said.count == 1 && said[0].contains("no second call came in the 1.00 s watched after it"), "\(said)")
        }

        /// Bad: an exit test ends when its body returns; `settleBeforeExit` keeps it alive while
        /// the late reply resumes the continuation a second time, which traps.
        @Test func aRacingLoaderInAnExitTest_trapsWithinTheSettleTime() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                _ = await RacingLoader(replyDelay: 0.05).load()
                await settleBeforeExit(for: 0.5)
            }
            // Swift Testing starts an exit test's child without the runtime's backtracer, so its
            // stderr has the fatal error's line and no crash report (no frames to quote).
            let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            #expect(stderr.contains("tried to resume its continuation more than once"), "\(stderr)")
            #expect(CrashReport.crashingThread(in: stderr) == nil, "\(stderr)")
        }

        /// Bad, in a cancelled task (a time limit, a timeout race): the settle still takes its whole
        /// time, so the second resume still traps inside the exit test.
        @Test func aRacingLoaderInACancelledTask_stillTrapsWithinTheSettleTime() async {
            await #expect(processExitsWith: .failure) {
                let body = Task {
                    _ = await RacingLoader(replyDelay: 0.05).load()
                    withUnsafeCurrentTask { $0?.cancel() }
                    await settleBeforeExit(for: 0.5)
                }
                await body.value
            }
        }

        @Test func aGuardedLoaderInAnExitTest_exitsCleanly() async {
            await #expect(processExitsWith: .success) {
                _ = await GuardedLoader(replyDelay: 0.05).load()
                await settleBeforeExit(for: 0.5)
            }
        }
    }
}
