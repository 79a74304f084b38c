import LabHarness

/// exp-callback's options, parsed once (`--latency`: seconds the app's lookup takes), and the
/// timings derived from them.
public struct CallbackParameters: ExperimentParameters {
    public var latency: Seconds, quick: Bool
    public init(_ options: ParsedOptions) { latency = options.double("latency"); quick = options.bool("quick") }

    /// How long the library waits for a completion handler: long enough that a well-behaved app
    /// is never cut off on a loaded machine.
    public var patience: Seconds { 2 * latency + 0.25 }
    /// The delegate's thinking time; when a message arrives during the lookup; the gap before
    /// the double-calling app's second call; the longest any scenario waits for a step.
    public var decisionDelay: Seconds { latency / 4 }
    public var incomingAfter: Seconds { latency / 4 }
    public var secondCallGap: Seconds { max(0.02, latency / 5) }
    public var deadline: Seconds { latency + patience + 1.5 }
    /// How long `urlsession-sync-main` may make no step before it is called a deadlock.
    var syncDeadlockWindow: Seconds { URLSessionSyncWrapper.stallWindow(quick: quick) }
}

/// The metric keys exp-callback's verdicts, report and tests read back: the JSON contract's
/// names (schema 1). A figure only written for the JSON (`hop_s`) is named where it is written.
public enum CallbackMetric {
    public static let latencyS = "latency_s", steps = "steps"
    public static let libraryHeldS = "library.held_s", incomingDelayS = "incoming.delay_s"
    /// 1: the library's thread was seen inside the app's lookup, not running, as a message came.
    public static let libraryThreadWaiting = "library.thread_waiting"
    public static let handlerCalls = "handler.calls", handlerIgnored = "handler.ignored"
    public static let callbackCalls = "callback.calls", stallDetectedAfterS = "stall.detected_after_s"
    public static let resumeOnAppQueue = "resume.on_app_queue", continuedOnAppQueue = "continued.on_app_queue"
    public static let taskFinished = "task.finished", taskSuspendedForS = "task.suspended_for_s"
    public static let warningCaptured = "warning.captured", warningAfterDropS = "warning.after_drop_s"
    public static let bodyBytes = "body.bytes", scheduledS = "scheduled_s", windowS = "window_s"
    public static let asyncBytes = "async.bytes", serverCompletedAfterS = "server.completed_after_s"
    public static let wrapperBytes = "wrapper.bytes", wrapperReturnedAfterS = "wrapper.returned_after_s"
    /// 1: the waiter was in the semaphore wait when the whole response had arrived (the
    /// deadlock's mechanism, by count), with this many handler calls.
    public static let wrapperWaiting = "wrapper.waiting", wrapperHandlerCalls = "wrapper.handler_calls"

    /// A figure of one part of a variant that runs several (`allow.messages`, `own.hop_s`).
    public enum Figure: String, Sendable {
        case asked, bytes, ended, messages, finished, cancelled
        case errorCode = "error_code", endedAfterS = "ended_after_s", askedAfterS = "asked_after_s"
        case handlerCalls = "handler.calls", decisionAfterS = "decision_after_s", endAfterDecisionS =
            "end_after_decision_s"
        case messagesBeforeDecision = "messages_before_decision", hopS = "hop_s"
        case handlerOnDelegateQueue = "handler.on_delegate_queue", handlerOnMainThread = "handler.on_main_thread"
        case hopOnMainThread = "hop.on_main_thread"
    }

    public static func of(_ part: String, _ figure: Figure) -> String { "\(part).\(figure.rawValue)" }
}

extension TrialTiming {
    /// A library variant's time: about `expected`; no step for the library's patience plus a
    /// lookup and 2 s is a hang, which the harness ends with stacks.
    static func library(_ expected: @escaping @Sendable (CallbackParameters) -> Seconds) -> TrialTiming {
        .from { (p: CallbackParameters) in TrialTime(expected: expected(p), stallWindow: p.patience + p.latency + 2) }
    }
}

extension Metrics {
    /// Sets the figures of one part of a variant (`allow.bytes`, `own.hop_s`).
    mutating func set(_ part: String, _ figures: KeyValuePairs<CallbackMetric.Figure, Double?>) {
        for (figure, value) in figures { self[CallbackMetric.of(part, figure)] = value }
    }
}
