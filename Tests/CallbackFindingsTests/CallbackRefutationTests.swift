@testable import CallbackExperiment
import LabHarness
import XCTest

/// Four claims took as their mechanism something seen only when the claim held (where the
/// callback ran, the library's queue seen free, a handler on its delegate queue, the runtime's
/// messages), so a run that refuted one read "not judged (mechanism not seen)", never "not
/// reproduced". Each mechanism is now what the trial sees whichever way the claim goes; these
/// are the refuting observations, each of which must leave the mechanism seen, and the ones
/// that saw nothing, which must not.
final class CallbackRefutationTests: XCTestCase {
    /// A library that sent its callback to another thread: seen, and the record's outcome
    /// (`failed`, forbidden) refutes the claim.
    func testACallbackRunElsewhereThanTheRenderingIsSeen() {
        let moved = Callback.mechanism(
            renderedOn: "chat.library #12", calledOn: "main #1", queue: "com.apple.main-thread")
        XCTAssertTrue(moved.seen, moved.what)
        XCTAssertTrue(moved.what.contains("the library rendered on chat.library #12"), moved.what)
        let unseen = Callback.mechanism(renderedOn: nil, calledOn: "main #1", queue: "com.apple.main-thread")
        XCTAssertFalse(unseen.seen, unseen.what)
    }

    /// A library that held its queue until the handler came, with the lookup on the app's queue:
    /// seen. A lookup never seen on the app's queue is another setting: not seen.
    func testALibraryHeldDuringAnAppQueueLookupIsSeen() {
        let held = CompletionHandler.mechanism(lookupOnAppQueue: true, freeAfter: nil)
        XCTAssertTrue(held.seen, held.what)
        XCTAssertTrue(held.what.contains("showed no message before the handler came"), held.what)
        XCTAssertFalse(CompletionHandler.mechanism(lookupOnAppQueue: false, freeAfter: 0.1).seen)
    }

    /// A handler that did not run on its session's delegate queue, asked from the main thread:
    /// seen. Asked from elsewhere, the claim's setting was not there: not seen.
    func testAHandlerOffItsDelegateQueueIsSeen() {
        let elsewhere = URLSessionQueues.mechanism(askedFromMain: true, onDelegateQueues: false)
        XCTAssertTrue(elsewhere.seen, elsewhere.what)
        XCTAssertFalse(URLSessionQueues.mechanism(askedFromMain: false, onDelegateQueues: true).seen)
    }

    /// A runtime that let both misuses pass (the leaked task went on with no warning, the second
    /// resume went unnoticed) refutes the claim: not reproduced, not "not judged". A double
    /// resume that crashed without the runtime's message saw nothing of the mechanism.
    func testARuntimeThatLetsBothMisusesPassRefutesTheClaim() throws {
        let options = try CommandLineParser(program: "exp-callback", flags: callbackExperiment.flags).parse([])
        var leakMetrics = Metrics()
        leakMetrics[CallbackMetric.warningCaptured] = 0
        leakMetrics[CallbackMetric.taskFinished] = 1
        let leak = VariantReport(
            name: CallbackVariant.asyncLeak.rawValue, outcome: .completed, metrics: leakMetrics,
            evidence: "no leak warning on stderr",
            events: [TimedEvent(t: 0.3, label: "app returns early and never calls the handler")])
        let second = TimedEvent(t: 0.4, label: "app calls the handler again from its retry path")
        func verdict(_ double: VariantReport) -> Verdict {
            CallbackVerdicts.continuationMisuseDetected(
                FindingInputs(variants: [leak.name: leak, double.name: double], options: options, platform: .current))
        }
        let passed = verdict(
            VariantReport(
                name: CallbackVariant.asyncDouble.rawValue, outcome: .completed,
                evidence: "the continuation was resumed twice and the process went on", events: [second]))
        XCTAssertEqual(passed.status, .notReproduced, passed.summary)
        XCTAssertTrue(passed.summary.contains("stderr was watched to the trial's end with no warning"), passed.summary)
        let crashedSilently = verdict(
            VariantReport(
                name: CallbackVariant.asyncDouble.rawValue, outcome: .crashed, evidence: "signal 11", events: [second]))
        XCTAssertEqual(crashedSilently.status, .notJudged(.mechanismNotSeen), crashedSilently.summary)
    }
}
