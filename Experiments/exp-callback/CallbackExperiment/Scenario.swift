import Dispatch
import Foundation
import LabHarness

/// What every variant shares: the parameters, a step log tied to the trial's progress, the app's
/// provider and helpers to wait and measure.
final class Scenario: Sendable {
    let context: VariantContext
    let parameters: CallbackParameters
    let steps: StepLog
    let app: AppProfiles
    /// The same-moment control the timing verdicts subtract: how long a thread that depends
    /// on no queue was held up by the machine during the trial (`control.stall_max_ms`).
    let control = StallWatch()

    init(_ context: VariantContext) {
        self.context = context
        parameters = CallbackParameters(context.options)
        steps = StepLog(startedAt: context.startedAt, progress: context.progress)
        app = AppProfiles(latency: parameters.latency, steps: steps)
    }

    func library(_ source: ChatLibrary.ProfileSource, steps: StepLog? = nil) -> ChatLibrary {
        ChatLibrary(source: source, patience: parameters.patience, steps: steps ?? self.steps)
    }

    /// Opens the sample conversation on `library` with a callback that records where it ran.
    func open(on library: ChatLibrary) -> CallProbe<Rendering> {
        let rendered = CallProbe<Rendering>()
        steps.record("app opens the conversation")
        library.open(.sample) { [steps] rendering in
            steps.record("app gets the rendered conversation (its callback runs)")
            rendered.record(rendering)
        }
        return rendered
    }

    /// A message arrives from the network `delay` seconds from now, from a thread of its own.
    func sendIncomingMessage(to library: ChatLibrary, after delay: Seconds) {
        NamedThread.start("net.socket") {
            MonotonicClock.sleep(for: delay)
            library.receive(Message(from: "u2", text: "are you there?"))
        }
    }

    /// Waits until `condition` holds, up to the scenario's deadline; on the main thread it
    /// keeps the main run loop (and so the main queue) turning meanwhile.
    func wait(until condition: () -> Bool) -> Bool {
        MainQueueFriendlyWait.until(within: parameters.deadline, condition)
    }

    /// 1 when the first step starting with `label` ran on `queue`, else 0 (also when absent).
    func ran(_ label: String, on queue: String) -> Double {
        steps.first(label)?.place.queue == queue ? 1 : 0
    }

    /// Where the first step starting with `label` ran, for evidence lines.
    func place(_ label: String) -> String {
        guard let step = steps.first(label) else { return "nowhere (it did not happen)" }
        return "\(step.place.queue) (\(step.place.thread))"
    }

    /// The metrics every library scenario reports.
    func metrics(_ library: ChatLibrary, rendered: CallProbe<Rendering>?) -> Metrics {
        var m = Metrics()
        m[CallbackMetric.latencyS] = parameters.latency
        if let held = library.heldTimes.max() { m[CallbackMetric.libraryHeldS] = held }
        if let delay = library.incomingDelays.first { m[CallbackMetric.incomingDelayS] = delay }
        m[CallbackMetric.handlerCalls] = Double(library.handlerCalls)
        m[CallbackMetric.handlerIgnored] = Double(library.diagnostics.filter { $0.kind == .calledAgain }.count)
        m[CallbackMetric.handlerNeverCalled] = Double(library.diagnostics.filter { $0.kind == .neverCalled }.count)
        if let rendered { m[CallbackMetric.callbackCalls] = Double(rendered.count) }
        m[CallbackMetric.steps] = Double(steps.all.count)
        m[CallbackMetric.wallS] = context.elapsed()
        return m
    }

    func record(_ outcome: Outcome, _ metrics: Metrics, _ evidence: String) -> VariantRecord {
        control.stop()
        var metrics = metrics
        metrics.merge(control.metrics)
        return VariantRecord(outcome: outcome, metrics: metrics, evidence: evidence, events: steps.events)
    }

    /// A scenario whose expected event never came: it did not hang (every wait has a
    /// deadline), it failed to measure.
    func failed(_ what: String, _ library: ChatLibrary? = nil) -> VariantRecord {
        let m = library.map { metrics($0, rendered: nil) } ?? Metrics()
        return record(.failed, m, "\(what) within \(Format.seconds(parameters.deadline))")
    }
}
