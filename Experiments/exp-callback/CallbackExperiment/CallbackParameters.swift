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

/// exp-callback's options, parsed once (`--latency`), and the timings derived from them.
public struct CallbackParameters: ExperimentParameters {
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
    /// A library variant's time: about `expected`; a child that takes no step for the
    /// library's patience plus a lookup and two seconds waits forever (its own watchdog fires
    /// after `patience`), and the harness ends it as a deadlock with its stacks.
    func libraryTime(_ expected: Seconds) -> TrialTime {
        TrialTime(expected: expected, stallWindow: patience + latency + 2)
    }
}

/// The metric keys exp-callback records, read by its verdicts, its report and its tests. They
/// are the JSON contract's names (`metrics` in schema 1); a rename here changes the JSON.
public enum CallbackMetric {
    public static let asyncBytes: MetricKey = "async.bytes"
    public static let asyncResumedOnMainThread: MetricKey = "async.resumed_on_main_thread"
    public static let bodyBytes: MetricKey = "body.bytes"
    public static let delegateQueueIsMain: MetricKey = "delegate_queue.is_main"
    public static let scheduledS: MetricKey = "scheduled_s"
    public static let serverCompletedAfterS: MetricKey = "server.completed_after_s"
    public static let windowS: MetricKey = "window_s"
    public static let wrapperBytes: MetricKey = "wrapper.bytes"
    public static let wrapperReturnedAfterS: MetricKey = "wrapper.returned_after_s"
    /// 1 when the waiting thread had entered the wrapper's semaphore wait and not come back
    /// when the whole response had arrived (the deadlock's mechanism, by count).
    public static let wrapperWaiting: MetricKey = "wrapper.waiting"
    /// Completion handler calls of the wrapper's data task when the response had arrived.
    public static let wrapperHandlerCalls: MetricKey = "wrapper.handler_calls"
    public static let awaitS: MetricKey = "await_s"
    public static let callbackCalls: MetricKey = "callback.calls"
    public static let callbackOnLibraryQueue: MetricKey = "callback.on_library_queue"
    public static let callbackOnMainThread: MetricKey = "callback.on_main_thread"
    public static let callerOnMainThread: MetricKey = "caller.on_main_thread"
    public static let continuedOnAppQueue: MetricKey = "continued.on_app_queue"
    public static let handlerCalls: MetricKey = "handler.calls"
    public static let handlerIgnored: MetricKey = "handler.ignored"
    public static let handlerNeverCalled: MetricKey = "handler.never_called"
    public static let handlerOnAppQueue: MetricKey = "handler.on_app_queue"
    public static let hopS: MetricKey = "hop_s"
    public static let incomingDelayS: MetricKey = "incoming.delay_s"
    public static let latencyS: MetricKey = "latency_s"
    public static let libraryHeldS: MetricKey = "library.held_s"
    /// 1 when the library's thread was seen inside the app's lookup (and not running) as the
    /// incoming message arrived.
    public static let libraryThreadWaiting: MetricKey = "library.thread_waiting"
    public static let lookupOnAppQueue: MetricKey = "lookup.on_app_queue"
    public static let lookupOnLibraryQueue: MetricKey = "lookup.on_library_queue"
    public static let patienceS: MetricKey = "patience_s"
    public static let renderOnLibraryQueue: MetricKey = "render.on_library_queue"
    public static let renderedIdsOnly: MetricKey = "rendered.ids_only"
    public static let resumeOnAppQueue: MetricKey = "resume.on_app_queue"
    public static let secondCallAfterS: MetricKey = "second_call_after_s"
    public static let stallDetectedAfterS: MetricKey = "stall.detected_after_s"
    public static let steps: MetricKey = "steps"
    public static let taskFinished: MetricKey = "task.finished"
    public static let taskSuspendedForS: MetricKey = "task.suspended_for_s"
    public static let uiOnMainThread: MetricKey = "ui.on_main_thread"
    public static let warningAfterDropS: MetricKey = "warning.after_drop_s"
    public static let warningCaptured: MetricKey = "warning.captured"

    /// A figure of one part of a variant that runs several (`allow.messages`, `cancel.bytes`,
    /// `own.hop_s`): the part is the decision, the answer or the session.
    public enum Figure: String, Sendable {
        case asked
        case bytes
        case ended
        case errorCode = "error_code"
        case endedAfterS = "ended_after_s"
        case askedAfterS = "asked_after_s"
        case messages
        case finished
        case cancelled
        case handlerCalls = "handler.calls"
        case decisionAfterS = "decision_after_s"
        case endAfterDecisionS = "end_after_decision_s"
        case messagesBeforeDecision = "messages_before_decision"
        case handlerOnDelegateQueue = "handler.on_delegate_queue"
        case handlerOnMainThread = "handler.on_main_thread"
        case hopOnMainThread = "hop.on_main_thread"
        case hopS = "hop_s"
    }

    public static func of(_ part: String, _ figure: Figure) -> MetricKey { MetricKey("\(part).\(figure.rawValue)") }
}
