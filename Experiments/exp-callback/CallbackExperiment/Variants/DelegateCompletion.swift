import Dispatch
import LabHarness
import Synchronization

/// `delegate-completion`: the library asks its delegate, through a completion handler,
/// whether a history download may go on (URLSession's `didReceive response` with `.allow` /
/// `.cancel`). Two syncs: one delegate allows, one cancels. Nothing is downloaded before the
/// decision; allowing delivers every message, cancelling ends the sync at once and cleanly.
enum DelegateCompletion {
    static func run(_ context: VariantContext) -> VariantRecord {
        let s = Scenario(context)
        var m = Metrics()
        m[CallbackMetric.latencyS] = s.parameters.latency
        var evidence: [String] = []
        var logs: [StepLog] = []
        for decision in [HistoryDisposition.allow, .cancel] {
            let steps = StepLog(startedAt: context.startedAt, progress: context.progress, prefix: "\(decision.rawValue) · ")
            logs.append(steps)
            let library = s.library(.completionHandler(s.app.onAppQueue), steps: steps)
            let delegate = DecidingDelegate(decision: decision, thinking: s.parameters.decisionDelay, steps: steps)
            steps.record("app starts a history sync")
            library.syncHistory(of: .sample, delegate: delegate)
            guard s.wait(until: { delegate.end != nil }) else {
                return s.record(.failed, m, "the \(decision.rawValue) sync did not end within \(Format.seconds(s.parameters.deadline))")
            }
            let key = decision.rawValue
            m["\(key).messages"] = Double(delegate.messages)
            m["\(key).finished"] = delegate.end == .finished(messages: Conversation.sample.messages.count) ? 1 : 0
            m["\(key).cancelled"] = delegate.end == .cancelled ? 1 : 0
            m["\(key).handler.calls"] = Double(library.handlerCalls)
            if let asked = steps.first("library receives the history header"), let decided = steps.first("app calls the decision handler") {
                m["\(key).decision_after_s"] = decided.t - asked.t
            }
            if let decided = steps.first("app calls the decision handler"), let end = steps.first("app's delegate learns the sync ended") {
                m["\(key).end_after_decision_s"] = end.t - decided.t
            }
            // Did any message reach the delegate before the decision was made?
            let decidedAt = steps.first("app calls the decision handler")?.t ?? .infinity
            let early = steps.all.filter { $0.label.contains("delegate gets message") && $0.t < decidedAt }.count
            m["\(key).messages_before_decision"] = Double(early)
            evidence.append("\(key): \(delegate.messages) messages, ended \(delegate.end.map(describe) ?? "never")")
        }
        m[CallbackMetric.wallS] = context.elapsed()
        let events = logs.flatMap(\.events)   // the allow sync, then the cancel sync
        s.control.stop()
        m.merge(s.control.metrics)
        return VariantRecord(outcome: .completed, metrics: m, evidence: evidence.joined(separator: "; "), events: events)
    }

    static func describe(_ end: SyncEnd) -> String {
        switch end {
        case .finished(let n): "finished (\(n) messages)"
        case .cancelled: "cancelled"
        case .noDecision: "without a decision"
        }
    }
}

/// The app's delegate: thinks on the app's queue for a moment, then decides.
final class DecidingDelegate: HistorySyncDelegate {
    private let decision: HistoryDisposition
    private let thinking: Seconds
    private let steps: StepLog
    private let queue = DispatchQueue(label: "app.delegate")
    private let state = Mutex<(messages: Int, end: SyncEnd?)>((0, nil))

    init(decision: HistoryDisposition, thinking: Seconds, steps: StepLog) {
        self.decision = decision
        self.thinking = thinking
        self.steps = steps
    }

    var messages: Int { state.withLock { $0.messages } }
    var end: SyncEnd? { state.withLock { $0.end } }

    func library(_ library: ChatLibrary, didReceive header: HistoryHeader,
                 completionHandler: @escaping @Sendable (HistoryDisposition) -> Void) {
        steps.record("app's delegate is asked; decides on its own queue")
        let decision = decision
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(thinking * 1e9))) {
            completionHandler(decision)
        }
    }

    func library(_ library: ChatLibrary, didReceive message: Message) {
        let n = state.withLock { s -> Int in s.messages += 1; return s.messages }
        steps.record("app's delegate gets message \(n)")
    }

    func library(_ library: ChatLibrary, didFinishSync end: SyncEnd) {
        steps.record("app's delegate learns the sync ended: \(DelegateCompletion.describe(end))")
        state.withLock { $0.end = end }   // after the step: a waiter that sees the end sees the step too
    }
}
