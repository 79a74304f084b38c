import LabHarness

/// exp-callback's variants by name (a rename fails to compile instead of showing "—").
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

    /// How long the library waits for a completion handler: twice the lookup plus a quarter
    /// second, so a well-behaved app is never cut off on a loaded machine.
    public var patience: Seconds { 2 * latency + 0.25 }
    /// The delegate's thinking time, and when a message arrives during the lookup.
    public var decisionDelay: Seconds { latency / 4 }
    public var incomingAfter: Seconds { latency / 4 }
    /// How long after the first call the double-calling app calls again.
    public var secondCallGap: Seconds { max(0.02, latency / 5) }
    /// The longest any scenario waits for something that should happen.
    public var deadline: Seconds { latency + patience + 1.5 }
    /// A library variant's time: about `expected`; no step for the library's patience (its own
    /// watchdog's window) plus a lookup and 2 s is a hang, which the harness ends with stacks.
    func libraryTime(_ expected: Seconds) -> TrialTime {
        TrialTime(expected: expected, stallWindow: patience + latency + 2)
    }
}

/// The metric keys exp-callback's verdicts, report and tests read back. They are the JSON
/// contract's names (`metrics` in schema 1): a rename changes the JSON. A figure only written
/// for the JSON (`hop_s`, `lookup.on_app_queue`) is named where it is written.
public enum CallbackMetric {
    public static let asyncBytes: MetricKey = "async.bytes"
    public static let bodyBytes: MetricKey = "body.bytes"
    public static let scheduledS: MetricKey = "scheduled_s"
    public static let serverCompletedAfterS: MetricKey = "server.completed_after_s"
    public static let windowS: MetricKey = "window_s"
    public static let wrapperBytes: MetricKey = "wrapper.bytes"
    public static let wrapperReturnedAfterS: MetricKey = "wrapper.returned_after_s"
    /// 1: the waiter was in the semaphore wait when the whole response had arrived (the
    /// deadlock's mechanism, by count), with this many handler calls.
    public static let wrapperWaiting: MetricKey = "wrapper.waiting"
    public static let wrapperHandlerCalls: MetricKey = "wrapper.handler_calls"
    public static let callbackCalls: MetricKey = "callback.calls"
    public static let continuedOnAppQueue: MetricKey = "continued.on_app_queue"
    public static let handlerCalls: MetricKey = "handler.calls"
    public static let handlerIgnored: MetricKey = "handler.ignored"
    public static let incomingDelayS: MetricKey = "incoming.delay_s"
    public static let latencyS: MetricKey = "latency_s"
    public static let libraryHeldS: MetricKey = "library.held_s"
    /// 1: the library's thread was seen inside the app's lookup, not running, as a message came.
    public static let libraryThreadWaiting: MetricKey = "library.thread_waiting"
    public static let resumeOnAppQueue: MetricKey = "resume.on_app_queue"
    public static let stallDetectedAfterS: MetricKey = "stall.detected_after_s"
    public static let steps: MetricKey = "steps"
    public static let taskFinished: MetricKey = "task.finished"
    public static let taskSuspendedForS: MetricKey = "task.suspended_for_s"
    public static let warningAfterDropS: MetricKey = "warning.after_drop_s"
    public static let warningCaptured: MetricKey = "warning.captured"

    /// A figure of one part of a variant that runs several (`allow.messages`, `cancel.bytes`,
    /// `own.hop_s`): the part is the decision, the answer or the session.
    public enum Figure: String, Sendable {
        case asked, bytes, ended, messages, finished, cancelled
        case errorCode = "error_code", endedAfterS = "ended_after_s", askedAfterS = "asked_after_s"
        case handlerCalls = "handler.calls", decisionAfterS = "decision_after_s", endAfterDecisionS = "end_after_decision_s"
        case messagesBeforeDecision = "messages_before_decision", hopS = "hop_s"
        case handlerOnDelegateQueue = "handler.on_delegate_queue", handlerOnMainThread = "handler.on_main_thread"
        case hopOnMainThread = "hop.on_main_thread"
    }

    public static func of(_ part: String, _ figure: Figure) -> MetricKey { MetricKey("\(part).\(figure.rawValue)") }
}

extension TrialTiming {
    /// A library variant's time: about `expected`, with the library's stall window.
    static func library(_ expected: @escaping @Sendable (CallbackParameters) -> Seconds) -> TrialTiming {
        .from { (p: CallbackParameters) in p.libraryTime(expected(p)) }
    }
}

extension Metrics {
    /// Sets the figures of one part of a variant (`allow.bytes`, `own.hop_s`).
    mutating func set(_ part: String, _ figures: KeyValuePairs<CallbackMetric.Figure, Double?>) {
        for (figure, value) in figures { self[CallbackMetric.of(part, figure)] = value }
    }
}
