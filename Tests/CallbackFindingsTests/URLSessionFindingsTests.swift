@testable import CallbackExperiment
import FindingsTestSupport
import Foundation
@testable import LabHarness
import LabHarnessXCTest
import XCTest

/// The callback article's claims on the real API: Foundation's URLSession against a loopback
/// HTTP server the child starts on 127.0.0.1. Each test runs the real `exp-callback` variants
/// as child processes and reads as a lesson; timings are judged as orderings or against the
/// response's own pacing, never as absolute limits a loaded machine could cross.
final class URLSessionFindingsTests: XCTestCase {
    /// A completion handler runs where the *session* says, not where the caller was: asked from
    /// the main thread, the handler of a session without a delegate queue runs on the session's
    /// own serial queue, and with `delegateQueue: app.delegate` on that queue; both off the main
    /// thread. The app hops to the main queue itself for its UI. The async `data(from:)` instead
    /// resumes its caller where it awaited: a `@MainActor` task on the main thread.
    func testACompletionHandlerRunsOnTheSessionsDelegateQueueNotTheCallers() throws {
        let report = try CallbackQuickRun.report()
        try assertReproduced("callback.urlsession-completion-on-delegate-queue", in: report, of: callbackExperiment)
        let v = try XCTUnwrap(report.variant(CallbackVariant.urlsessionQueues))
        XCTAssertEqual(v.outcome, .completed)
        XCTAssertEqual(
            queue("app resumes a data task", in: v), "com.apple.main-thread", "the caller is the main thread")
        XCTAssertEqual(
            queue("given · completion handler runs", in: v), "app.delegate", "the given delegate queue ran it")
        XCTAssertNotEqual(
            queue("own · completion handler runs", in: v), "com.apple.main-thread",
            "the session's own queue is not the main queue")
        XCTAssertEqual(
            queue("own · app's UI update", in: v), "com.apple.main-thread", "the hop to the main queue is the app's own"
        )
        XCTAssertEqual(
            queue("async · the task resumes", in: v), "com.apple.main-thread",
            "the @MainActor caller resumed on the main thread")
        XCTAssertEqual(v[CallbackMetric.of("own", .bytes)], v[CallbackMetric.asyncBytes], "the same body both ways")
    }

    /// The classic "make the request synchronous" helper: resume the task, wait on a semaphore.
    /// On the main thread with the main queue as delegate queue, the whole response arrives and
    /// the handler that would signal the semaphore is queued for the very thread that waits: the
    /// child is stuck until the harness kills it, and its stacks show the main thread waiting
    /// in the wrapper. With a background delegate queue the same wrapper returns.
    func testASemaphoreWrapperDeadlocksTheMainThreadWhenTheDelegateQueueIsMain() throws {
        let report = try CallbackQuickRun.report()
        try assertReproduced("callback.urlsession-sync-wrapper-deadlocks-main", in: report, of: callbackExperiment)
        let main = try XCTUnwrap(report.variant(CallbackVariant.urlsessionSyncMain))
        XCTAssertEqual(main.outcome, .deadlock)
        XCTAssertNotNil(main[CallbackMetric.serverCompletedAfterS], "the response had arrived before the kill")
        XCTAssertEqual(main[CallbackMetric.wrapperHandlerCalls], 0, "the handler never ran")
        if StackCapture.unavailableReason == nil {  // where stacks are taken (Linux), they show the wait
            XCTAssertNotNil(
                main.whereClause(in: "dispatch_semaphore_wait", calledFrom: "fetchSynchronously"),
                "the stacks show the wait: \(main.stackGroups.map { $0.summary() })")
        }
        let background = try XCTUnwrap(report.variant(CallbackVariant.urlsessionSyncBackground))
        XCTAssertEqual(background.outcome, .completed)
        XCTAssertEqual(background[CallbackMetric.wrapperBytes], Double(URLSessionSyncWrapper.response.body.count))
    }

    /// On Linux the response's disposition is not waited for: swift-corelibs-foundation hands the
    /// delegate a handler that discards its argument and lets libcurl's transfer run on. A task
    /// whose delegate answers `.cancel`, or never answers, gets the whole body and completes
    /// without error, at the same time as the one answered `.allow` (the three run side by side).
    /// The finding that the disposition gates the task is reported not applicable here, with
    /// that reason.
    func testOnLinuxTheDispositionIsIgnored() throws {
        try XCTSkipUnless(PlatformInfo.current.isLinux, "swift-corelibs-foundation only")
        let report = try CallbackQuickRun.report()
        try assertReproduced("callback.linux-urlsession-ignores-disposition", in: report, of: callbackExperiment)
        let gates = try XCTUnwrap(report.finding("callback.urlsession-disposition-gates-task"))
        XCTAssertFalse(gates.applicable)
        XCTAssertTrue(gates.summary.contains("discards the disposition"), gates.summary)
        let v = try XCTUnwrap(report.variant(CallbackVariant.urlsessionDisposition))
        XCTAssertEqual(v.outcome, .dispositionIgnored)
        for answer in URLSessionDisposition.Answer.allCases.map(\.rawValue) {
            XCTAssertEqual(v[CallbackMetric.of(answer, .asked)], 1, answer)
            XCTAssertEqual(v[CallbackMetric.of(answer, .bytes)], v[CallbackMetric.bodyBytes], answer)
            XCTAssertEqual(v[CallbackMetric.of(answer, .errorCode)], 0, answer)
        }
    }

    /// The two disposition verdicts judge the measurements, not the platform: a record that
    /// shows the documented gating (nothing without an answer, an immediate cancel) satisfies
    /// the gating finding and fails the Linux one, and a Linux record the other way round. (On
    /// Linux the gating finding is never evaluated by a run, so its rule is checked here.)
    func testTheDispositionVerdictsTellGatingFromIgnoring() throws {
        let options = try CommandLineParser(program: "exp-callback", flags: callbackExperiment.flags).parse([])
        func inputs(_ outcome: Outcome, _ metrics: Metrics) -> FindingInputs {
            let name = CallbackVariant.urlsessionDisposition.rawValue
            return FindingInputs(
                variants: [name: VariantReport(name: name, outcome: outcome, metrics: metrics)],
                options: options, platform: .current)
        }
        var gated = Metrics()
        gated[CallbackMetric.bodyBytes] = 100_000
        gated[CallbackMetric.scheduledS] = 0.5
        gated[CallbackMetric.windowS] = 2.5
        for (key, bytes, ended, code, at) in [
            ("allow", 100_000.0, 1.0, 0.0, 0.5), ("never", 0, 0, 0, .nan), ("cancel", 0, 1, -999, 0.11),
        ] {
            gated[CallbackMetric.of(key, .asked)] = 1
            gated[CallbackMetric.of(key, .bytes)] = bytes
            gated[CallbackMetric.of(key, .ended)] = ended
            gated[CallbackMetric.of(key, .errorCode)] = code
            if at.isFinite { gated[CallbackMetric.of(key, .endedAfterS)] = at }
        }
        var ignored = gated
        for key in ["never", "cancel"] {
            ignored[CallbackMetric.of(key, .bytes)] = 100_000
            ignored[CallbackMetric.of(key, .ended)] = 1
            ignored[CallbackMetric.of(key, .errorCode)] = 0
            ignored[CallbackMetric.of(key, .endedAfterS)] = 0.51
        }
        XCTAssertTrue(CallbackVerdicts.urlSessionDispositionGatesTask(inputs(.completed, gated)).reproduced)
        XCTAssertFalse(CallbackVerdicts.linuxURLSessionIgnoresDisposition(inputs(.completed, gated)).reproduced)
        XCTAssertTrue(
            CallbackVerdicts.linuxURLSessionIgnoresDisposition(inputs(.dispositionIgnored, ignored)).reproduced)
        XCTAssertFalse(CallbackVerdicts.urlSessionDispositionGatesTask(inputs(.dispositionIgnored, ignored)).reproduced)
        // Ignored, but one task ended a whole second after the others: not "at the same time".
        var late = ignored
        late[CallbackMetric.of("never", .endedAfterS)] = 1.6
        XCTAssertFalse(CallbackVerdicts.linuxURLSessionIgnoresDisposition(inputs(.dispositionIgnored, late)).reproduced)
        // No delegate seen asked for a disposition: the symptom alone is not judged either way.
        var unasked = ignored
        for key in ["allow", "never", "cancel"] { unasked[CallbackMetric.of(key, .asked)] = 0 }
        let verdict = CallbackVerdicts.linuxURLSessionIgnoresDisposition(inputs(.dispositionIgnored, unasked))
        XCTAssertFalse(verdict.judged)
        XCTAssertFalse(verdict.reproduced)
    }

    /// A main-thread wrapper that came back refutes the deadlock claim: judged, not reproduced.
    /// The claim's mechanism was the main thread seen stuck in the wait after the whole response
    /// arrived, which a wrapper that returned can never show, so a refutation read "not judged".
    func testAMainThreadWrapperThatReturnedRefutesTheDeadlockClaim() throws {
        let options = try CommandLineParser(program: "exp-callback", flags: callbackExperiment.flags).parse([])
        let body = Double(URLSessionSyncWrapper.response.body.count)
        func report(_ variant: CallbackVariant, onMain: Bool) -> VariantReport {
            var m = Metrics()
            m["caller.on_main_thread"] = onMain ? 1 : 0
            m["delegate_queue.is_main"] = onMain ? 1 : 0
            m[CallbackMetric.wrapperBytes] = body
            m[CallbackMetric.wrapperReturnedAfterS] = 0.01
            return VariantReport(name: variant.rawValue, outcome: .completed, metrics: m)
        }
        let main = report(.urlsessionSyncMain, onMain: true)
        let background = report(.urlsessionSyncBackground, onMain: false)
        let inputs = FindingInputs(
            variants: [main.name: main, background.name: background], options: options, platform: .current)
        let verdict = CallbackVerdicts.urlSessionSyncWrapperDeadlocksMain(inputs)
        XCTAssertEqual(verdict.status, .notReproduced, verdict.summary)
        XCTAssertTrue(verdict.summary.contains("waited on the main thread with the main queue"), verdict.summary)
    }
}
