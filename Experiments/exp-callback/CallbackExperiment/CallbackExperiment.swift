import LabHarness

/// exp-callback's variants by name (the command line's and the JSON's), for declarations and
/// tests: a rename fails to compile instead of showing "—". A new variant is a case here, its
/// declaration below and its body in `Variants/`.
public enum CallbackVariant: String, CaseIterable, Sendable {
    case syncReturn = "sync-return", callback, completionHandler = "completion-handler"
    case delegateCompletion = "delegate-completion", forgottenHandler = "forgotten-handler", doubleCall = "double-call"
    case asyncBridge = "async-bridge", asyncLeak = "async-leak", asyncDouble = "async-double"
    case urlsessionDisposition = "urlsession-disposition", urlsessionQueues = "urlsession-queues"
    case urlsessionSyncMain = "urlsession-sync-main", urlsessionSyncBackground = "urlsession-sync-background"
}

/// exp-callback: every variant runs the same chat library (ChatLibrary/) against a different
/// app, in a child process (two trap or leave a task suspended for good on purpose).
public let callbackExperiment = ExperimentDefinition(
    name: "callback",
    executable: "exp-callback",
    question: "Callback or completion handler: who runs the block, on which queue, and how many times?",
    about: """
        A small in-process chat library renders a conversation and asks the app for its users' \
        profiles, the way the article's ChatKit does with setFetchProfilesBlock:. Each variant is a \
        different app: one that answers with a return value, one that gets a completion handler and \
        answers from its own queue, one that forgets the handler, one that calls it twice, a URLSession-\
        style delegate whose completion handler allows or cancels the work, and the same provider \
        bridged to async/await with a checked continuation (used right, leaked, and resumed twice). \
        Every step records its queue and thread. The default lookup takes 1 s, so that a held queue \
        shows as a whole second; the library waits 2 x latency + 0.25 s for a completion handler \
        before it reports a stall.
        The urlsession-* variants test the same claims on the real API: Foundation's URLSession \
        against a loopback HTTP server the child starts on 127.0.0.1 (a response paced in timed \
        pieces), with fixed timings of half a second at most whatever --latency says.
        """,
    flags: [
        .seconds(
            "latency", default: 1.0, quick: 0.25, range: 0.05...10,
            help: "how long the app's simulated profile lookup takes")
    ],
    variants: [
        Variant(
            CallbackVariant.syncReturn, "the provider returns the profiles; the library waits on its own queue",
            expect: [
                .expected(.completed, "the lookup ran on the library's queue and held it for its whole length"),
                .forbidden(.failed, "the lookup ran off the library's queue, or did not hold it for its length"),
            ],
            claim: Claim(
                "callback.sync-return-blocks-library",
                "With a return-value provider the app's lookup runs on the library's queue and holds it for the lookup's whole latency."
            ),
            time: .library { p in p.latency * 1.1 }, progressMetric: CallbackMetric.steps, body: SyncReturn.run),
        Variant(
            CallbackVariant.callback, "the library calls the app back when its own work is done",
            expect: [
                .expected(.completed, "the callback ran where the library's work ended, on its queue"),
                .forbidden(.failed, "the callback ran elsewhere, or the app's hop to main did not land there"),
            ],
            claim: Claim(
                "callback.callback-runs-on-library-queue",
                "A callback runs where the library's work ended, on the library's queue, not on the thread that asked; the app hops to the main queue itself."
            ),
            time: .library { _ in 0.2 }, progressMetric: CallbackMetric.steps, body: Callback.run),
        Variant(
            CallbackVariant.completionHandler,
            "the provider gets a handler, looks up on the app's queue, calls it from there",
            expect: [
                .expected(.completed, "the library's queue stayed free; the result hopped back to it"),
                .forbidden(.failed, "the library's queue was held, or the result came on the wrong queue"),
            ],
            claim: Claim(
                "callback.completion-handler-frees-library",
                "With a completion handler the library's queue is held for near zero time; the result arrives on the app's queue and the library hops back to its own."
            ),
            time: .library { p in p.latency * 1.1 }, instruments: [.stallWatch], progressMetric: CallbackMetric.steps,
            body: CompletionHandler.run),
        Variant(
            CallbackVariant.delegateCompletion, "a delegate's completion handler allows or cancels a history download",
            expect: [
                .expected(.completed, "both syncs ended: allow delivered everything, cancel nothing"),
                .forbidden(.failed, "a message came before the decision, or a decision did not take effect at once"),
            ],
            claim: Claim(
                "callback.delegate-completion-gates-work",
                "A delegate's completion handler gates the work: nothing happens before the decision, .allow delivers everything, .cancel ends the work at once and cleanly."
            ),
            time: .library { p in p.latency * 0.6 + 0.2 }, instruments: [.stallWatch],
            progressMetric: CallbackMetric.steps, body: DelegateCompletion.run),
        Variant(
            CallbackVariant.forgottenHandler, "the app never calls the handler; the library's watchdog steps in",
            expect: [
                .expected(.stalled, "the library detected the missing call within its patience and reported it"),
                .forbidden(.deadlock, "the library waited forever for a call that never came"),
                .forbidden(.completed, "the library went on without noticing the missing call"),
                .forbidden(.failed, "the library reported the stall outside its patience window"),
            ],
            claim: Claim(
                "callback.forgotten-handler-stalls",
                "A completion handler that is never called stalls the operation; the library's watchdog detects it within its patience and reports it instead of waiting forever."
            ),
            time: .library { p in p.patience + 0.2 }, instruments: [.stallWatch], progressMetric: CallbackMetric.steps,
            body: ForgottenHandler.run),
        Variant(
            CallbackVariant.doubleCall, "the app calls the handler twice; the library's once-guard catches the second",
            expect: [
                .expected(.completed, "one rendering; the second call was ignored and reported"),
                .forbidden(.renderedTwice, "the second call got through the once-guard"),
                .forbidden(.failed, "the second call was not reported"),
            ],
            claim: Claim(
                "callback.double-call-detected",
                "A completion handler called twice is caught by the library's once-guard: the second call is reported and ignored, the work happens once."
            ),
            time: .library { p in p.latency * 1.3 + 0.1 }, progressMetric: CallbackMetric.steps, body: DoubleCall.run),
        Variant(
            CallbackVariant.asyncBridge, "the provider behind await, through withCheckedContinuation, resumed once",
            expect: [.expected(.completed, "the task resumed once and went on after the await")],
            time: .library { p in p.latency * 1.1 }, progressMetric: CallbackMetric.steps, body: AsyncBridge.bridge),
        Variant(
            CallbackVariant.asyncLeak, "the continuation's handler is dropped without a call",
            expect: [
                .expected(.leaked, "the runtime warned on stderr; the task never went on"),
                .interesting(.stalled, "the task never went on, and the runtime said nothing"),
                .forbidden(.completed, "a never-resumed continuation let its task go on"),
            ],
            time: .library { p in p.latency + p.patience }, progressMetric: CallbackMetric.steps, body: AsyncBridge.leak
        ),
        Variant(
            CallbackVariant.asyncDouble, "the continuation is resumed twice",
            expect: [
                .expected(.crashed, "the second resume trapped the process"),
                .forbidden(.completed, "the second resume went unnoticed"),
            ],
            time: .library { p in p.latency * 1.3 + 0.1 }, progressMetric: CallbackMetric.steps,
            body: AsyncBridge.double),
        Variant(
            CallbackVariant.urlsessionDisposition,
            "three real data tasks on a loopback server; the delegate answers the response .allow, never, or .cancel",
            expect: [
                .expected(
                    .completed,
                    "the answer gated each task: .allow got the body, the unanswered task got nothing and did not end, .cancel ended at once without a body"
                ),
                .interesting(
                    .dispositionIgnored,
                    "every task got the whole body and completed without error whatever the answer: this Foundation does not wait for the disposition (swift-corelibs-foundation)"
                ),
                .forbidden(.failed, "neither: a task lost bytes or ended in a way no answer explains"),
            ],
            time: .about(0.7), instruments: [.stallWatch], progressMetric: CallbackMetric.steps,
            body: URLSessionDisposition.run),
        Variant(
            CallbackVariant.urlsessionQueues,
            "asked from the main thread: where a data task's completion handler runs, the hop to main, and async data(from:)",
            expect: [
                .expected(
                    .completed,
                    "every handler ran off the main thread, every hop landed on it and the async caller resumed on it"),
                .forbidden(
                    .failed, "a handler ran on the main thread, a hop missed it, or the async caller resumed elsewhere"),
            ],
            claim: Claim(
                "callback.urlsession-completion-on-delegate-queue",
                "A URLSession data task's completion handler runs on the session's delegate queue (its own serial queue, or the one given), not on the caller's thread; the app hops to the queue it wants; async data(from:) resumes a @MainActor caller on the main thread."
            ),
            time: .about(0.3), progressMetric: CallbackMetric.steps, body: URLSessionQueues.run),
        // A hang is the expected outcome here: the stall window is its detection time.
        Variant(
            CallbackVariant.urlsessionSyncMain,
            "a semaphore wrapper around a data task, on the main thread, with the main queue as delegate queue",
            expect: [
                .expected(
                    .deadlock,
                    "the handler is queued for the main thread, which waits for it: the wrapper never returns"),
                .forbidden(.completed, "the wrapper returned: the handler ran without the main thread"),
            ],
            time: .from { (p: CallbackParameters) in
                TrialTime(expected: p.syncDeadlockWindow + 0.3, stallWindow: p.syncDeadlockWindow)
            }, progressMetric: CallbackMetric.steps, body: URLSessionSyncWrapper.onMain),
        Variant(
            CallbackVariant.urlsessionSyncBackground, "the same wrapper with a background delegate queue",
            expect: [
                .expected(.completed, "the handler ran on the background queue and the wrapper returned"),
                .forbidden(.stalled, "the wrapper's bounded wait ran out"),
                .forbidden(.deadlock, "the wrapper never returned"),
            ],
            time: .about(0.2), progressMetric: CallbackMetric.steps, body: URLSessionSyncWrapper.onBackground),
    ],
    findings: [
        Finding(
            "callback.continuation-misuse-detected",
            claim:
                "Checked continuations enforce exactly-once at run time: a leaked one makes the runtime warn on stderr while its task stays suspended; one resumed twice traps.",
            needs: [CallbackVariant.asyncLeak, .asyncDouble], evaluate: CallbackVerdicts.continuationMisuseDetected),
        Finding(
            "callback.urlsession-sync-wrapper-deadlocks-main",
            claim:
                "A semaphore wrapper around a data task deadlocks on the main thread when the delegate queue is the main queue (the response has arrived, the handler waits for the blocked thread); with a background delegate queue it returns.",
            needs: [CallbackVariant.urlsessionSyncMain, .urlsessionSyncBackground],
            evaluate: CallbackVerdicts.urlSessionSyncWrapperDeadlocksMain),
        Finding(
            "callback.urlsession-disposition-gates-task",
            claim:
                "The response's disposition handler gates a URLSession data task: unanswered, the task receives nothing and does not end; .cancel ends it at once without a body; .allow delivers the body.",
            needs: [CallbackVariant.urlsessionDisposition], appliesWhen: { !$0.isLinux },
            notApplicableReason:
                "swift-corelibs-foundation does not wait for the answer: HTTPURLProtocol.didReceiveResponse lets libcurl's transfer run on (it cannot be paused) and hands the delegate a handler that discards the disposition (see callback.linux-urlsession-ignores-disposition)",
            evaluate: CallbackVerdicts.urlSessionDispositionGatesTask),
        Finding(
            "callback.linux-urlsession-ignores-disposition",
            claim:
                "On Linux (swift-corelibs-foundation) the disposition is ignored: answered .allow, .cancel or never, a data task receives the whole body and completes without error at the same time.",
            needs: [CallbackVariant.urlsessionDisposition], appliesWhen: { $0.isLinux },
            notApplicableReason:
                "this Foundation is not swift-corelibs-foundation; callback.urlsession-disposition-gates-task judges it",
            thresholds: [CallbackThreshold.together], evaluate: CallbackVerdicts.linuxURLSessionIgnoresDisposition),
    ],
    columns: callbackColumns,
    defaultJobs: 3,
    extraSections: { [EventSection.table($0, title: "steps (t from the trial's start · queue · thread)")] },
    parameters: CallbackParameters.self
)

/// The outcomes exp-callback defines (the declarations above say what each means).
public extension Outcome {
    static let renderedTwice: Outcome = "rendered-twice", dispositionIgnored: Outcome = "disposition-ignored"
}
