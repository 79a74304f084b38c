import LabHarness

/// exp-callback, declared: the flags, the variants with the outcomes each expects, the
/// findings (in CallbackFindings.swift) and how the report reads (CallbackReport.swift).
///
/// Every variant runs the same small chat library (ChatLibrary/) against a different app
/// (App/ProfileProviders.swift), in a child process of its own: two of them trap or leave a
/// task suspended for good on purpose.
public let callbackExperiment = ExperimentDefinition(
    name: "callback",
    executable: "exp-callback",
    question: "Callback or completion handler: who runs the block, on which queue, and how many times?",
    about: """
    A small in-process chat library renders a conversation and asks the app for its users' \
    profiles, the way the seed's ChatKit does with setFetchProfilesBlock:. Each variant is a \
    different app: one that answers with a return value, one that gets a completion handler and \
    answers from its own queue, one that forgets the handler, one that calls it twice, a URLSession-\
    style delegate whose completion handler allows or cancels the work, and the same provider \
    bridged to async/await with a checked continuation (used right, leaked, and resumed twice). \
    Every step records its queue and thread. The default lookup takes 1 s, so that a held queue \
    shows as a whole second; the library waits 2 x latency + 0.25 s for a completion handler \
    before it reports a stall.
    """,
    flags: [
        .seconds("latency", default: 1.0, quick: 0.25, range: 0.05...10,
                 help: "how long the app's simulated profile lookup takes"),
    ],
    variants: [
        Variant("sync-return", summary: "the provider returns the profiles; the library waits on its own queue",
                expect: [OutcomeExpectation(.completed, .expected, "the lookup ran on the library's queue and held it for its whole length")],
                budget: budget, stallWindow: stallWindow, estimate: { latency($0) * 1.1 }, progressMetric: "steps",
                body: SyncReturn.run),
        Variant("callback", summary: "the library calls the app back when its own work is done",
                expect: [OutcomeExpectation(.completed, .expected, "the callback ran where the library's work ended, on its queue")],
                budget: budget, stallWindow: stallWindow, estimate: { _ in 0.2 }, progressMetric: "steps",
                body: Callback.run),
        Variant("completion-handler", summary: "the provider gets a handler, looks up on the app's queue, calls it from there",
                expect: [OutcomeExpectation(.completed, .expected, "the library's queue stayed free; the result hopped back to it")],
                budget: budget, stallWindow: stallWindow, estimate: { latency($0) * 1.1 }, progressMetric: "steps",
                body: CompletionHandler.run),
        Variant("delegate-completion", summary: "a delegate's completion handler allows or cancels a history download",
                expect: [OutcomeExpectation(.completed, .expected, "both syncs ended: allow delivered everything, cancel nothing")],
                budget: budget, stallWindow: stallWindow, estimate: { latency($0) * 0.6 + 0.2 }, progressMetric: "steps",
                body: DelegateCompletion.run),
        Variant("forgotten-handler", summary: "the app never calls the handler; the library's watchdog steps in",
                expect: [OutcomeExpectation(.stalled, .expected, "the library detected the missing call within its patience and reported it"),
                         OutcomeExpectation(.deadlock, .forbidden, "the library waited forever for a call that never came"),
                         OutcomeExpectation(.completed, .forbidden, "the library went on without noticing the missing call")],
                budget: budget, stallWindow: stallWindow, estimate: { patience($0) + 0.2 }, progressMetric: "steps",
                body: ForgottenHandler.run),
        Variant("double-call", summary: "the app calls the handler twice; the library's once-guard catches the second",
                expect: [OutcomeExpectation(.completed, .expected, "one rendering; the second call was ignored and reported"),
                         OutcomeExpectation("rendered-twice", .forbidden, "the second call got through the once-guard")],
                budget: budget, stallWindow: stallWindow, estimate: { latency($0) * 1.3 + 0.1 }, progressMetric: "steps",
                body: DoubleCall.run),
        Variant("async-bridge", summary: "the provider behind await, through withCheckedContinuation, resumed once",
                expect: [OutcomeExpectation(.completed, .expected, "the task resumed once and went on after the await")],
                budget: budget, stallWindow: stallWindow, estimate: { latency($0) * 1.1 }, progressMetric: "steps",
                body: AsyncBridge.bridge),
        Variant("async-leak", summary: "the continuation's handler is dropped without a call",
                expect: [OutcomeExpectation(.leaked, .expected, "the runtime warned on stderr; the task never went on"),
                         OutcomeExpectation(.stalled, .interesting, "the task never went on, and the runtime said nothing"),
                         OutcomeExpectation(.completed, .forbidden, "a never-resumed continuation let its task go on")],
                budget: budget, stallWindow: stallWindow, estimate: { latency($0) + patience($0) }, progressMetric: "steps",
                body: AsyncBridge.leak),
        Variant("async-double", summary: "the continuation is resumed twice",
                expect: [OutcomeExpectation(.crashed, .expected, "the second resume trapped the process"),
                         OutcomeExpectation(.completed, .forbidden, "the second resume went unnoticed")],
                budget: budget, stallWindow: stallWindow, estimate: { latency($0) * 1.3 + 0.1 }, progressMetric: "steps",
                body: AsyncBridge.double),
    ],
    findings: callbackFindings,
    columns: callbackColumns,
    defaultJobs: 3,
    extraSections: stepSections
)

private func latency(_ options: ParsedOptions) -> Seconds { CallbackKnobs(options).latency }
private func patience(_ options: ParsedOptions) -> Seconds { CallbackKnobs(options).patience }
private func budget(_ options: ParsedOptions) -> Seconds { CallbackKnobs(options).budget }
private func stallWindow(_ options: ParsedOptions) -> Seconds? { CallbackKnobs(options).stallWindow }
