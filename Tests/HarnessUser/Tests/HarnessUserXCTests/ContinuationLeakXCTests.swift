import Foundation
import HarnessUserKit
import LabHarnessXCTest
import XCTest

/// An async `assertCompletes` whose operation awaits a continuation that was released without a
/// resume: the failure quotes the Swift runtime's own line, which names the function.
final class ContinuationLeakXCTests: CapturingTestCase {
    /// Bad: the lookup's empty-id path returns without resuming.
    func testALeakedContinuation_isQuotedInTheFailure() async {
        await expectOneFailure(atLine: #line + 2, containing: "did not complete within 500 ms; its task was cancelled and abandoned",
                               "the Swift runtime printed \"SWIFT TASK CONTINUATION MISUSE: leakyDisplayName(for:) leaked its continuation") {
            await assertCompletes(within: 0.5) { _ = await NameDirectory().leakyDisplayName(for: "") }
        }
    }

    /// Fixed: every path resumes.
    func testAResumedContinuation_completes() async {
        let took = await assertCompletes(within: 2) { _ = await NameDirectory().displayName(for: "") }
        XCTAssertNotNil(took)
    }

    /// A crash while stderr is being copied: its message and the backtracer's report still reach
    /// the real stderr (here the child's, which the parent reads).
    func testACrashWhileStderrIsCopied_stillPrintsItsReport() {
        let run = assertInChildProcess(expecting: .crashed, budget: 30) {
            let done = DispatchSemaphore(value: 0)
            Task {
                await assertCompletes(within: 20) { CrashingWork.crash("crashed while stderr was copied") }
                done.signal()
            }
            done.wait()
        }
        guard let stderr = run?.stderr else { return }
        XCTAssertTrue(stderr.contains("Fatal error: crashed while stderr was copied"), stderr)
        XCTAssertNotNil(CrashReport.crashingThread(in: stderr), stderr)
    }
}
