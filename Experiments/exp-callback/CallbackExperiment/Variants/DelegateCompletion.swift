import Dispatch
import LabHarness
import Synchronization

/// `delegate-completion`: the library asks its delegate, through a completion handler, whether
/// a history download may go on (URLSession's `.allow` / `.cancel`).
enum DelegateCompletion {
    static func run(_ context: VariantContext) -> VariantRecord {
        let p = context.callbackParameters
        let total = Conversation.sample.messages.count
        var m: Metrics = [CallbackMetric.latencyS: p.latency]
        var evidence: [String] = [], gated: [String] = [], symptom = true, gaveUp: Evidence?
        for decision in [HistoryDisposition.allow, .cancel] {
            let key = decision.rawValue, prefix = "\(key) · "
            let library = context.library(.completionHandler(context.app(prefix).onAppQueue), prefix)
            let delegate = DecidingDelegate(
                decision: decision, thinking: p.decisionDelay, narrate: context.narrator(prefix))
            context.step(prefix + "app starts a history sync")
            library.syncHistory(of: .sample, delegate: delegate)
            guard context.wait(until: { delegate.end != nil }) else {
                var record = context.failed("the \(key) sync did not end")
                record.metrics.merge(m)
                return record
            }
            gaveUp = gaveUp ?? context.libraryGaveUp(library)
            let decidedStep = prefix + "app calls the decision handler"
            let decided = context.firstStep(decidedStep)?.t ?? .infinity
            let early = context.events.filter {
                $0.label.hasPrefix(prefix + "app's delegate gets message") && $0.t < decided
            }.count
            let endAfter = context.interval(decidedStep, prefix + "app's delegate learns the sync ended")
            m.set(
                key,
                [
                    .messages: Double(delegate.messages), .finished: delegate.end == .finished(messages: total) ? 1 : 0,
                    .cancelled: delegate.end == .cancelled ? 1 : 0, .handlerCalls: Double(library.handlerCalls),
                    .decisionAfterS: context.interval(prefix + "library receives the history header", decidedStep),
                    .endAfterDecisionS: endAfter, .messagesBeforeDecision: Double(early),
                ])
            let prompt = max(CallbackThreshold.cancelPrompt.value, p.latency) + context.stallSoFar
            symptom =
                symptom && early == 0
                && (decision == .allow
                    ? delegate.messages == total && delegate.end == .finished(messages: total)
                    : delegate.messages == 0 && delegate.end == .cancelled && (endAfter ?? .infinity) < prompt)
            let ended = delegate.end.map(describe) ?? "never"
            let afterDecision = endAfter.map { " \(seconds: $0) after the decision" } ?? ""
            evidence.append(
                "\(key): \(delegate.messages) of \(total) messages, \(early) before the decision, ended \(ended)\(afterDecision)"
            )
            // The mechanism: the library asked, then waited for the handler, which the app called once from its
            // own queue.
            if context.firstStep(prefix + "app's delegate is asked") != nil, library.handlerCalls == 1,
                context.queue(of: decidedStep) == DecidingDelegate.queueLabel
            {
                gated.append(key)
            }
        }
        m.merge(context.figures())
        return VariantRecord(
            outcome: symptom ? .completed : .failed, metrics: m,
            evidence: evidence.joined(separator: "; ")
                + " (cancel ends within \(CallbackThreshold.cancelPrompt) or the lookup's length)",
            mechanism: gaveUp ?? .when(
                gated.count == 2,
                "both delegates were asked and called their decision handler once, from \(DecidingDelegate.queueLabel); the library went on only from inside it",
                otherwise:
                    "a delegate's decision handler was not seen asked and called once (\(gated.joined(separator: ", ")) only)"
            ))
    }

    static func describe(_ end: SyncEnd) -> String {
        switch end {
        case .finished(let n): "finished (\(n) messages)";
        case .cancelled: "cancelled";
        case .noDecision: "without a decision"
        }
    }
}

/// The app's delegate: thinks on the app's queue for a moment, then decides.
final class DecidingDelegate: HistorySyncDelegate {
    static let queueLabel = "app.delegate"
    private let decision: HistoryDisposition, thinking: Seconds, narrate: Narrate
    private let queue = DispatchQueue(label: DecidingDelegate.queueLabel)
    private let state = Mutex<(messages: Int, end: SyncEnd?)>((0, nil))
    init(decision: HistoryDisposition, thinking: Seconds, narrate: @escaping Narrate) {
        (self.decision, self.thinking, self.narrate) = (decision, thinking, narrate)
    }
    var messages: Int { state.withLock { $0.messages } }
    var end: SyncEnd? { state.withLock { $0.end } }

    func library(
        _ library: ChatLibrary, didReceive header: HistoryHeader,
        completionHandler: @escaping @Sendable (HistoryDisposition) -> Void
    ) {
        narrate("app's delegate is asked; decides on its own queue")
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(thinking * 1e9))) { [decision] in
            completionHandler(decision)
        }
    }

    func library(_ library: ChatLibrary, didReceive message: Message) {
        let n = state.withLock { s -> Int in
            s.messages += 1; return s.messages
        }
        narrate("app's delegate gets message \(n)")
    }

    func library(_ library: ChatLibrary, didFinishSync end: SyncEnd) {
        narrate("app's delegate learns the sync ended: \(DelegateCompletion.describe(end))")
        state.withLock { $0.end = end }  // after the step: a waiter that sees the end sees the step too
    }
}
