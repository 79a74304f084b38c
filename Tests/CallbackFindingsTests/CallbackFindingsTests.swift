import CallbackExperiment
import Foundation
import LabHarness
import LabHarnessXCTest
import XCTest

/// One test per finding of exp-callback, each running the real executable's variants as
/// child processes with `--quick` (a 0.25 s lookup). Assertions are on orderings, on which
/// queue a step ran, and on ratios of the lookup's latency with wide margins, never on
/// absolute times that a loaded machine could stretch.
final class CallbackFindingsTests: XCTestCase {
    private func run(_ variants: String, _ extra: [String] = []) throws -> ExperimentReport {
        try ExperimentRunner.run(callbackExperiment, arguments: ["--quick", "--variant", variants] + extra,
                                 executable: BuiltProducts.executable("exp-callback"))
    }

    private func assertReproduced(_ report: ExperimentReport, _ id: String, file: StaticString = #filePath, line: UInt = #line) {
        guard let finding = report.finding(id) else { return XCTFail("\(id) was not evaluated", file: file, line: line) }
        XCTAssertTrue(finding.applicable, file: file, line: line)
        XCTAssertTrue(finding.reproduced, "\(id): \(finding.summary)", file: file, line: line)
    }

    /// The index of the first event whose label contains `text` (fails the test when absent).
    private func index(_ text: String, in v: VariantReport?, file: StaticString = #filePath, line: UInt = #line) -> Int {
        guard let i = v?.events?.firstIndex(where: { $0.label.contains(text) }) else {
            XCTFail("no step '\(text)' in \(v?.name ?? "?")", file: file, line: line)
            return -1
        }
        return i
    }

    /// The queue part of the event's place (`chat.library · -qos.overcommit #4711`).
    private func queue(_ text: String, in v: VariantReport?) -> String? {
        v?.events?.first { $0.label.contains(text) }?.thread?.components(separatedBy: " · ").first
    }

    /// A provider that returns its answer makes the library wait for it, and it waits on its own
    /// queue: the app's 0.25 s lookup runs on `chat.library` and holds it the whole time, so a
    /// message arriving meanwhile is shown only after the return value came back. Measured: the
    /// queue each step ran on, the library's hold against the lookup's latency, and the order of
    /// the steps. It holds because a synchronous call cannot return before its callee does.
    func testSyncReturnBlocksLibrary() throws {
        let report = try run("sync-return")
        assertReproduced(report, "callback.sync-return-blocks-library")
        let v = report.variant(CallbackVariant.syncReturn)
        let latency = try XCTUnwrap(v?.metrics["latency_s"])
        XCTAssertEqual(latency, 0.25)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(v?.metrics["library.held_s"]), 0.9 * latency, "held for the whole lookup")
        XCTAssertEqual(queue("app looks up", in: v), "chat.library", "the app's code ran on the library's queue")
        // The incoming message could only be shown after the return value came back.
        XCTAssertLessThan(index("library has the return value", in: v), index("library shows an incoming message", in: v))
    }

    /// Handing the app a completion handler frees the library at once: the app moves its lookup
    /// to its own queue and returns, the library's queue is held for microseconds (under a fifth
    /// of the lookup even with a machine stall added), an incoming message is shown before the
    /// lookup ends, and the library hops back to `chat.library` when the handler is called.
    /// Measured: the hold, the queue of each step and their order. It holds because the library
    /// no longer waits for an answer: it waits for a call.
    func testCompletionHandlerFreesLibrary() throws {
        let report = try run("completion-handler")
        assertReproduced(report, "callback.completion-handler-frees-library")
        let v = report.variant(CallbackVariant.completionHandler)
        let latency = try XCTUnwrap(v?.metrics["latency_s"])
        // Plus the worst stall a same-moment control thread saw: one can land on the hold.
        XCTAssertLessThan(try XCTUnwrap(v?.metrics["library.held_s"]), 0.2 * latency + (v?.metrics[StallWatch.worstMetric] ?? 0) / 1000)
        XCTAssertEqual(queue("app looks up", in: v), "app.profiles")
        XCTAssertEqual(queue("app calls the fetchProfiles handler", in: v), "app.profiles")
        XCTAssertEqual(queue("library is back on its queue", in: v), "chat.library")
        XCTAssertEqual(queue("library renders", in: v), "chat.library")
        // Free before the lookup ends: the incoming message is shown before the handler is called.
        XCTAssertLessThan(index("library's queue is free again", in: v), index("app calls the fetchProfiles handler", in: v))
        XCTAssertLessThan(index("library shows an incoming message", in: v), index("app calls the fetchProfiles handler", in: v))
        XCTAssertLessThan(index("app calls the fetchProfiles handler", in: v), index("library is back on its queue", in: v))
    }

    /// A callback runs where the library's work ended, not where the request came from: asked
    /// from the main thread, the app's callback runs on `chat.library`, and updating the UI needs
    /// the app's own hop to the main queue, which comes after it. Measured: the queue of each
    /// step and their order. It holds because calling a closure never changes threads: only a
    /// dispatch to a queue does.
    func testCallbackRunsOnLibraryQueue() throws {
        let report = try run("callback")
        assertReproduced(report, "callback.callback-runs-on-library-queue")
        let v = report.variant(CallbackVariant.callback)
        XCTAssertEqual(queue("app opens the conversation", in: v), "com.apple.main-thread")
        XCTAssertEqual(queue("app gets the rendered conversation", in: v), "chat.library")
        XCTAssertEqual(queue("app updates its UI", in: v), "com.apple.main-thread")
        XCTAssertLessThan(index("app gets the rendered conversation", in: v), index("app updates its UI", in: v))
    }

    /// A delegate method with a decision handler gates the library's work on the app's answer:
    /// nothing is downloaded before the decision, `.allow` delivers all 4 messages, `.cancel`
    /// none, and each handler is called exactly once, from the app's own queue. Measured: message
    /// and handler counts per decision, the queue of the decision, the order of the steps. It
    /// holds because the library continues only from inside the handler the app calls.
    func testDelegateCompletionGatesWork() throws {
        let report = try run("delegate-completion")
        assertReproduced(report, "callback.delegate-completion-gates-work")
        let v = report.variant(CallbackVariant.delegateCompletion)
        XCTAssertEqual(v?.metrics["allow.messages"], 4)
        XCTAssertEqual(v?.metrics["cancel.messages"], 0)
        XCTAssertEqual(v?.metrics["allow.handler.calls"], 1)
        XCTAssertEqual(v?.metrics["cancel.handler.calls"], 1)
        // Nothing downloaded before the decision, and the decision came from the app's queue.
        XCTAssertLessThan(index("allow · app calls the decision handler", in: v), index("allow · app's delegate gets message 1", in: v))
        XCTAssertEqual(queue("allow · app calls the decision handler", in: v), "app.delegate")
        XCTAssertLessThan(index("cancel · app calls the decision handler", in: v), index("cancel · app's delegate learns the sync ended: cancelled", in: v))
    }

    /// A completion handler the app never calls leaves the operation waiting forever unless the
    /// library watches for it: the library's watchdog reports the stall after its patience (not
    /// before, and not much later, a machine stall allowed for) and renders without profiles.
    /// Measured: the outcome the library reported (`stalled`, not a harness kill), when it was
    /// detected against the patience, the evidence, the order of the steps. It holds because no
    /// one but the library's own timer can notice a call that never comes.
    func testForgottenHandlerStalls() throws {
        let report = try run("forgotten-handler")
        assertReproduced(report, "callback.forgotten-handler-stalls")
        let v = try XCTUnwrap(report.variant(CallbackVariant.forgottenHandler))
        XCTAssertEqual(v.outcome, .stalled, "reported by the library, not killed by the harness")
        XCTAssertEqual(v.grade, .expected)
        let patience = try XCTUnwrap(v.metrics["patience_s"])
        let detected = try XCTUnwrap(v.metrics["stall.detected_after_s"])
        XCTAssertGreaterThanOrEqual(detected, patience * 0.99, "not before the patience ran out")
        XCTAssertLessThan(detected, patience + 0.5 + (v.metrics[StallWatch.worstMetric] ?? 0) / 1000,
                          "detected within its window (plus what a machine stall added), not hung")
        XCTAssertTrue(v.evidence?.contains("was not called within") ?? false, v.evidence ?? "")
        XCTAssertLessThan(index("app returns early and never calls the handler", in: v), index("library gives up", in: v))
    }

    /// A completion handler called twice is caught by the library's once-guard: the second call
    /// is reported and ignored on the caller's own thread, and the conversation is rendered once.
    /// Measured: handler calls against callback calls, the evidence, the queue of the refusal.
    /// It holds because the guard claims the handler under a lock before it does any work.
    func testDoubleCallDetected() throws {
        let report = try run("double-call")
        assertReproduced(report, "callback.double-call-detected")
        let v = report.variant(CallbackVariant.doubleCall)
        XCTAssertEqual(v?.metrics["handler.calls"], 2)
        XCTAssertEqual(v?.metrics["callback.calls"], 1)
        XCTAssertTrue(v?.evidence?.contains("called a second time") ?? false, v?.evidence ?? "")
        XCTAssertEqual(queue("library ignores call 2", in: v), "app.retry", "refused on the caller's own thread")
    }

    /// Swift's checked continuations check exactly-once at run time: the bridge resumes once and
    /// the task continues on the runtime's executor (not the app's queue); a continuation
    /// dropped without a resume makes the runtime warn on stderr while its task stays suspended;
    /// one resumed twice traps. Measured: outcomes, the runtime's own messages, where the task
    /// resumed and continued. It holds because a `CheckedContinuation` counts its resumes and
    /// warns in its deinit when it was never resumed.
    func testContinuationMisuseDetected() throws {
        let report = try run("async-bridge,async-leak,async-double")
        assertReproduced(report, "callback.continuation-misuse-detected")
        let bridge = report.variant(CallbackVariant.asyncBridge)
        XCTAssertEqual(bridge?.outcome, .completed)
        XCTAssertEqual(bridge?.metrics["resume.on_app_queue"], 1)
        XCTAssertEqual(bridge?.metrics["continued.on_app_queue"], 0, "after await the task runs on the runtime's executor")
        let leak = try XCTUnwrap(report.variant(CallbackVariant.asyncLeak))
        XCTAssertEqual(leak.outcome, .leaked)
        XCTAssertTrue(leak.evidence?.hasPrefix("SWIFT TASK CONTINUATION MISUSE") ?? false, leak.evidence ?? "")
        XCTAssertEqual(leak.metrics["task.finished"], 0)
        XCTAssertNil(leak.events?.first { $0.label.contains("after await") }, "the task never continued")
        let double = try XCTUnwrap(report.variant(CallbackVariant.asyncDouble))
        XCTAssertEqual(double.outcome, .crashed)
        XCTAssertTrue(double.evidence?.contains("tried to resume its continuation more than once") ?? false, double.evidence ?? "")
    }
}
