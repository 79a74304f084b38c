import Foundation
import HarnessUserKit
import LabHarnessTesting
import Testing

extension HarnessUserSwiftTests {
    /// An async `assertCompletes` whose operation awaits a continuation released without a
    /// resume: the issue quotes the Swift runtime's own line, which names the function.
    @Suite struct ContinuationLeak {
        /// Bad: the lookup's empty-id path returns without resuming.
        @Test func aLeakedContinuation_isQuotedInTheIssue() async {
            await HarnessUserSwiftTests.expectOneIssue(atLine: #line + 2,
                                                       containing: "the Swift runtime printed \"SWIFT TASK CONTINUATION MISUSE: leakyDisplayName(for:) leaked its continuation") {
                await assertCompletes(within: 0.5) { _ = await NameDirectory().leakyDisplayName(for: "") }
            }
        }

        /// Fixed: every path resumes.
        @Test func aResumedContinuation_completes() async {
            #expect(await assertCompletes(within: 2) { _ = await NameDirectory().displayName(for: "") } != nil)
        }

        /// A crash while stderr is being copied: its report still reaches the real stderr (the
        /// exit test's, which the parent reads).
        @Test func aCrashWhileStderrIsCopied_stillPrintsItsReport() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                await assertCompletes(within: 20) { CrashingWork.crash("crashed while stderr was copied") }
            }
            let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            // Swift Testing runs exit tests with the backtracer off (SWIFT_BACKTRACE=enable=no
            // unless set), so the report here is the runtime's message (and, in a debug build,
            // its "Current stack trace:"); the XCTest twin checks the backtracer's full report.
            #expect(stderr.contains("Fatal error: crashed while stderr was copied"), "\(stderr)")
        }
    }
}
