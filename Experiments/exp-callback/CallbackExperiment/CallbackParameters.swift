import LabHarness

/// exp-callback's variants by name: the declaration, the verdicts, the report and the tests
/// all refer to these cases, so a rename fails to compile instead of showing "—".
public enum CallbackVariant: String, CaseIterable, VariantName {
    case syncReturn = "sync-return"
    case callback
    case completionHandler = "completion-handler"
    case delegateCompletion = "delegate-completion"
    case forgottenHandler = "forgotten-handler"
    case doubleCall = "double-call"
    case asyncBridge = "async-bridge"
    case asyncLeak = "async-leak"
    case asyncDouble = "async-double"
    case urlsessionDisposition = "urlsession-disposition"
    case urlsessionQueues = "urlsession-queues"
    case urlsessionSyncMain = "urlsession-sync-main"
    case urlsessionSyncBackground = "urlsession-sync-background"
}

/// exp-callback's options, read once, the numbers derived from them, and the trial limits.
public struct CallbackParameters: Sendable {
    /// Seconds the app's profile lookup takes (`--latency`).
    public var latency: Seconds

    public init(latency: Seconds) { self.latency = latency }
    public init(_ options: ParsedOptions) { latency = options.double("latency") }

    /// How long the library waits for a completion handler before it goes on without it.
    /// Twice the lookup plus a quarter second: a well-behaved app is never cut off, even on a
    /// loaded machine, and a forgetful one is caught in a few seconds at most.
    public var patience: Seconds { 2 * latency + 0.25 }
    /// How long the delegate thinks before it decides.
    public var decisionDelay: Seconds { latency / 4 }
    /// When an incoming message arrives during the lookup.
    public var incomingAfter: Seconds { latency / 4 }
    /// How long after the first call the double-calling app calls again.
    public var secondCallGap: Seconds { max(0.02, latency / 5) }
    /// The longest any scenario waits for something that should happen.
    public var deadline: Seconds { latency + patience + 1.5 }
    /// A child trial's budget: generous; a trial that needs it has failed anyway.
    public var budget: Seconds { 2 * deadline + 5 }
    /// The harness kills a child that takes no step for this long: only a library that waits
    /// forever gets there (its own watchdog fires after `patience`).
    public var stallWindow: Seconds { patience + latency + 2 }

    /// Every variant: the budget and stall window above, progress counted in steps; each
    /// variant gives its own estimate.
    static func limits(estimate: @escaping @Sendable (CallbackParameters) -> Seconds) -> TrialLimits {
        TrialLimits(budget: { CallbackParameters($0).budget }, stallWindow: { CallbackParameters($0).stallWindow },
                    estimate: { estimate(CallbackParameters($0)) }, progressMetric: CallbackMetric.steps)
    }

    /// The URLSession variants, which run against the loopback server with fixed timings (a
    /// response of half a second at most) whatever `--latency` says: a budget no trial needs,
    /// and a stall window longer than the disposition scenario's own wait, so that only a
    /// thread stuck for good reaches it.
    static func urlSessionLimits(estimate: Seconds, stallWindow: Seconds = URLSessionDisposition.window + 1.5) -> TrialLimits {
        TrialLimits(budget: { _ in 20 }, stallWindow: { _ in stallWindow }, estimate: { _ in estimate },
                    progressMetric: CallbackMetric.steps)
    }

    /// The stall window of the main-thread wrapper: its last step (the server sent everything)
    /// comes a few tens of milliseconds after the resume; two seconds without another one is
    /// four times the worst machine stall measured here.
    static let syncWrapperStallWindow: Seconds = 2
}

/// The metric keys exp-callback records and reads back in its verdicts and report, spelled once.
/// They are the JSON contract's names (`metrics` in schema 1); a rename here changes the JSON.
enum CallbackMetric {
    static let asyncBytes = "async.bytes"
    static let asyncResumedOnMainThread = "async.resumed_on_main_thread"
    static let bodyBytes = "body.bytes"
    static let delegateQueueIsMain = "delegate_queue.is_main"
    static let scheduledS = "scheduled_s"
    static let serverCompletedAfterS = "server.completed_after_s"
    static let windowS = "window_s"
    static let wrapperBytes = "wrapper.bytes"
    static let wrapperReturnedAfterS = "wrapper.returned_after_s"
    static let allowDecisionAfterS = "allow.decision_after_s"
    static let allowFinished = "allow.finished"
    static let allowHandlerCalls = "allow.handler.calls"
    static let allowMessages = "allow.messages"
    static let allowMessagesBeforeDecision = "allow.messages_before_decision"
    static let awaitS = "await_s"
    static let callbackCalls = "callback.calls"
    static let callbackOnLibraryQueue = "callback.on_library_queue"
    static let callbackOnMainThread = "callback.on_main_thread"
    static let callerOnMainThread = "caller.on_main_thread"
    static let cancelCancelled = "cancel.cancelled"
    static let cancelEndAfterDecisionS = "cancel.end_after_decision_s"
    static let cancelHandlerCalls = "cancel.handler.calls"
    static let cancelMessages = "cancel.messages"
    static let cancelMessagesBeforeDecision = "cancel.messages_before_decision"
    static let continuedOnAppQueue = "continued.on_app_queue"
    static let handlerCalls = "handler.calls"
    static let handlerIgnored = "handler.ignored"
    static let handlerNeverCalled = "handler.never_called"
    static let handlerOnAppQueue = "handler.on_app_queue"
    static let hopS = "hop_s"
    static let incomingDelayS = "incoming.delay_s"
    static let latencyS = "latency_s"
    static let libraryHeldS = "library.held_s"
    static let lookupOnAppQueue = "lookup.on_app_queue"
    static let lookupOnLibraryQueue = "lookup.on_library_queue"
    static let patienceS = "patience_s"
    static let renderOnLibraryQueue = "render.on_library_queue"
    static let renderedIdsOnly = "rendered.ids_only"
    static let resumeOnAppQueue = "resume.on_app_queue"
    static let secondCallAfterS = "second_call_after_s"
    static let stallDetectedAfterS = "stall.detected_after_s"
    static let steps = "steps"
    static let taskFinished = "task.finished"
    static let taskSuspendedForS = "task.suspended_for_s"
    static let uiOnMainThread = "ui.on_main_thread"
    static let wallS = "wall_s"
    static let warningAfterDropS = "warning.after_drop_s"
    static let warningCaptured = "warning.captured"
}
