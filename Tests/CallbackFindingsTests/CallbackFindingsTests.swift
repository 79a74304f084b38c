import CallbackExperiment
import FindingsTestSupport
import Foundation
import LabHarness
import LabHarnessXCTest
import XCTest

/// One `--quick` run of every exp-callback variant (a 0.25 s lookup), as child processes of
/// the real executable, shared by the findings tests: each test reads the claim it documents.
enum CallbackQuickRun {
    static let result = Result {
        // The `--quick` run `lab all` made for every suite (`SharedQuickLabAll`), else its own.
        try SharedQuickLabAll.report(of: callbackExperiment, lab: BuiltProducts.executable("lab"))
            ?? ExperimentRunner.run(
                callbackExperiment, arguments: ["--quick"], executable: BuiltProducts.executable("exp-callback"))
    }

    static func report() throws -> ExperimentReport { try result.get() }
}

/// Shared helpers: steps by queue and order.
extension XCTestCase {
    /// The index of the first event whose label contains `text` (fails the test when absent).
    func index(_ text: String, in v: VariantReport?, file: StaticString = #filePath, line: UInt = #line) -> Int {
        guard let i = v?.events?.firstIndex(where: { $0.label.contains(text) }) else {
            XCTFail("no step '\(text)' in \(v?.name ?? "?")", file: file, line: line)
            return -1
        }
        return i
    }

    /// The queue part of the event's place (`chat.library · -qos.overcommit #4711`).
    func queue(_ text: String, in v: VariantReport?) -> String? {
        v?.events?.first { $0.label.contains(text) }?.thread?.components(separatedBy: " · ").first
    }
}

/// One test per claim of exp-callback about the chat library. Assertions are on verdicts and
/// outcomes (whose thresholds live in the experiment, named once), on which queue a step ran
/// and on the order of the steps, never on a figure a loaded machine could stretch.
final class CallbackFindingsTests: XCTestCase {
    /// A provider that returns its answer makes the library wait for it, and it waits on its own
    /// queue: the lookup runs on `chat.library` and holds it, the library's thread is seen
    /// waiting inside it as a message arrives, and that message is shown only after the return
    /// value came back. It holds because a synchronous call cannot return before its callee does.
    func testSyncReturnBlocksLibrary() throws {
        let report = try CallbackQuickRun.report()
        try assertReproduced("callback.sync-return-blocks-library", in: report, of: callbackExperiment)
        let v = report.variant(CallbackVariant.syncReturn)
        XCTAssertEqual(v?[CallbackMetric.libraryThreadWaiting], 1)
        XCTAssertEqual(queue("app looks up", in: v), "chat.library", "the app's code ran on the library's queue")
        XCTAssertLessThan(
            index("library has the return value", in: v), index("library shows an incoming message", in: v))
    }

    /// Handing the app a completion handler frees the library at once: the app moves its lookup
    /// to its own queue and returns, an incoming message is shown while the lookup runs, and the
    /// library hops back to `chat.library` when the handler is called. It holds because the
    /// library no longer waits for an answer: it waits for a call.
    func testCompletionHandlerFreesLibrary() throws {
        let report = try CallbackQuickRun.report()
        try assertReproduced("callback.completion-handler-frees-library", in: report, of: callbackExperiment)
        let v = report.variant(CallbackVariant.completionHandler)
        XCTAssertEqual(queue("app looks up", in: v), "app.profiles")
        XCTAssertEqual(queue("app calls the fetchProfiles handler", in: v), "app.profiles")
        XCTAssertEqual(queue("library is back on its queue", in: v), "chat.library")
        XCTAssertEqual(queue("library renders", in: v), "chat.library")
        XCTAssertLessThan(
            index("library's queue is free again", in: v), index("app calls the fetchProfiles handler", in: v))
        XCTAssertLessThan(
            index("library shows an incoming message", in: v), index("app calls the fetchProfiles handler", in: v))
        XCTAssertLessThan(
            index("app calls the fetchProfiles handler", in: v), index("library is back on its queue", in: v))
    }

    /// A callback runs where the library's work ended, not where the request came from: asked
    /// from the main thread, the callback runs on `chat.library`, on the thread that rendered,
    /// and updating the UI needs the app's own hop to the main queue. It holds because calling
    /// a closure never changes threads: only a dispatch to a queue does.
    func testCallbackRunsOnLibraryQueue() throws {
        let report = try CallbackQuickRun.report()
        try assertReproduced("callback.callback-runs-on-library-queue", in: report, of: callbackExperiment)
        let v = report.variant(CallbackVariant.callback)
        XCTAssertEqual(queue("app opens the conversation", in: v), "com.apple.main-thread")
        XCTAssertEqual(queue("app gets the rendered conversation", in: v), "chat.library")
        XCTAssertEqual(queue("app updates its UI", in: v), "com.apple.main-thread")
        XCTAssertLessThan(index("app gets the rendered conversation", in: v), index("app updates its UI", in: v))
    }

    /// A delegate method with a decision handler gates the library's work on the app's answer:
    /// nothing is downloaded before the decision, `.allow` delivers every message, `.cancel`
    /// none, and each handler is called exactly once, from the app's own queue. It holds because
    /// the library continues only from inside the handler the app calls.
    func testDelegateCompletionGatesWork() throws {
        let report = try CallbackQuickRun.report()
        try assertReproduced("callback.delegate-completion-gates-work", in: report, of: callbackExperiment)
        let v = report.variant(CallbackVariant.delegateCompletion)
        XCTAssertEqual(v?[CallbackMetric.of("allow", .messages)], Double(Conversation.sample.messages.count))
        XCTAssertEqual(v?[CallbackMetric.of("cancel", .messages)], 0)
        XCTAssertLessThan(
            index("allow · app calls the decision handler", in: v),
            index("allow · app's delegate gets message 1", in: v))
        XCTAssertEqual(queue("allow · app calls the decision handler", in: v), "app.delegate")
        XCTAssertLessThan(
            index("cancel · app calls the decision handler", in: v),
            index("cancel · app's delegate learns the sync ended: cancelled", in: v))
    }

    /// A completion handler the app never calls leaves the operation waiting forever unless the
    /// library watches for it: the handler is seen pending, never called, after the app's block
    /// ended, and the library's watchdog reports the stall within its patience window and renders
    /// without profiles. It holds because no one but the library's own timer can notice a call
    /// that never comes.
    func testForgottenHandlerStalls() throws {
        let report = try CallbackQuickRun.report()
        try assertReproduced("callback.forgotten-handler-stalls", in: report, of: callbackExperiment)
        let v = try XCTUnwrap(report.variant(CallbackVariant.forgottenHandler))
        XCTAssertEqual(v.outcome, .stalled, "reported by the library, not killed by the harness")
        XCTAssertEqual(v[CallbackMetric.handlerCalls], 0)
        XCTAssertTrue(v.evidence?.contains("was not called within") ?? false, v.evidence ?? "")
        XCTAssertLessThan(
            index("app returns early and never calls the handler", in: v), index("library gives up", in: v))
    }

    /// A completion handler called twice is caught by the library's once-guard: the second call
    /// reaches the guard from the app's retry queue, is reported and ignored there, and the
    /// conversation is rendered once. It holds because the guard claims the handler under a
    /// lock before it does any work.
    func testDoubleCallDetected() throws {
        let report = try CallbackQuickRun.report()
        try assertReproduced("callback.double-call-detected", in: report, of: callbackExperiment)
        let v = report.variant(CallbackVariant.doubleCall)
        XCTAssertEqual(v?[CallbackMetric.handlerCalls], 2)
        XCTAssertEqual(v?[CallbackMetric.callbackCalls], 1)
        XCTAssertEqual(queue("library ignores call 2", in: v), "app.retry", "refused on the caller's own thread")
    }

    /// Swift's checked continuations check exactly-once at run time: the bridge resumes once and
    /// the task continues on the runtime's executor (not the app's queue); a continuation
    /// dropped without a resume makes the runtime warn on stderr while its task stays suspended;
    /// one resumed twice traps. It holds because a `CheckedContinuation` counts its resumes and
    /// warns in its deinit when it was never resumed.
    func testContinuationMisuseDetected() throws {
        let report = try CallbackQuickRun.report()
        try assertReproduced("callback.continuation-misuse-detected", in: report, of: callbackExperiment)
        let bridge = report.variant(CallbackVariant.asyncBridge)
        XCTAssertEqual(bridge?.outcome, .completed)
        XCTAssertEqual(bridge?[CallbackMetric.resumeOnAppQueue], 1)
        XCTAssertEqual(
            bridge?[CallbackMetric.continuedOnAppQueue], 0, "after await the task runs on the runtime's executor")
        let leak = try XCTUnwrap(report.variant(CallbackVariant.asyncLeak))
        XCTAssertEqual(leak.outcome, .leaked)
        XCTAssertTrue(leak.evidence?.hasPrefix("SWIFT TASK CONTINUATION MISUSE") ?? false, leak.evidence ?? "")
        XCTAssertNil(leak.events?.first { $0.label.contains("after await") }, "the task never continued")
        let double = try XCTUnwrap(report.variant(CallbackVariant.asyncDouble))
        XCTAssertEqual(double.outcome, .crashed)
        XCTAssertTrue(
            double.evidence?.contains("tried to resume its continuation more than once") ?? false, double.evidence ?? ""
        )
    }
}
