import LabHarness
import Synchronization

/// Something the library or the app says it is doing, as a step of the scenario.
public typealias Narrate = @Sendable (String) -> Void

/// What the variants share. A scenario's steps are events of the trial's one log
/// (`context.event`) whose `thread` reads `queue · thread` (`chat.library · -qos.overcommit
/// #4711`): a completion handler's whole point is *where* it runs. Each step also advances the
/// trial's progress, so the harness sees a scenario that stops taking steps as stalled.
extension VariantContext {
    var callbackParameters: CallbackParameters { parameters(CallbackParameters.self) }

    /// Records `label` at `instant` (default now) in `place` (default where the caller runs).
    func step(_ label: String, at instant: Seconds? = nil, place: ExecutionPlace = .current) {
        event(label, at: instant, thread: "\(place.queue) · \(place.thread)")
        progress.advance()
    }

    /// A narrator for the library and the app that records steps with `prefix` before each label.
    func narrator(_ prefix: String = "") -> Narrate { { [self] label in step(prefix + label) } }

    /// The first step whose label starts with `start`.
    func firstStep(_ start: String) -> TimedEvent? { events.first { $0.label.hasPrefix(start) } }

    /// The queue the first step starting with `start` ran on.
    func queue(of start: String) -> String? { firstStep(start)?.thread?.components(separatedBy: " · ").first }

    /// 1 when the first step starting with `label` ran on `queue`, else 0 (also when absent).
    func ran(_ label: String, on queue: String) -> Double { self.queue(of: label) == queue ? 1 : 0 }

    /// `queue (thread)` of the first step starting with `start`, for evidence lines.
    func place(of start: String) -> String {
        guard let place = firstStep(start)?.thread else { return "nowhere (it did not happen)" }
        return place.replacingOccurrences(of: " · ", with: " (") + ")"
    }

    /// Seconds from the first step starting with `from` to the first starting with `to`.
    func interval(_ from: String, _ to: String) -> Seconds? {
        guard let a = firstStep(from), let b = firstStep(to) else { return nil }
        return b.t - a.t
    }

    /// Waits until `condition` holds, up to the scenario's deadline; on the main thread it
    /// keeps the main run loop (and so the main queue) turning meanwhile.
    func wait(until condition: () -> Bool) -> Bool {
        MainQueueFriendlyWait.until(within: callbackParameters.deadline, condition)
    }

    /// How long the machine held up the same-moment control since the trial started.
    var stallSoFar: Seconds { machineDelay(from: startedAt, to: MonotonicClock.now()) }

    /// The app, narrating its steps (with `prefix`, to tell apart the scenarios of one variant).
    func app(_ prefix: String = "") -> AppProfiles { AppProfiles(latency: callbackParameters.latency, narrate: narrator(prefix)) }

    func library(_ source: ChatLibrary.ProfileSource, _ prefix: String = "") -> ChatLibrary {
        ChatLibrary(source: source, patience: callbackParameters.patience, narrate: narrator(prefix))
    }

    /// Opens the sample conversation on `library` with a callback that records where it ran.
    func open(on library: ChatLibrary) -> CallProbe<Rendering> {
        let rendered = CallProbe<Rendering>()
        step("app opens the conversation")
        library.open(.sample) { [self] rendering in
            step("app gets the rendered conversation (its callback runs)")
            rendered.record(rendering)
        }
        return rendered
    }

    /// A message from the network, `after` seconds into the app's lookup, from a thread of its
    /// own; `look` runs just before it is posted. Timed from the lookup's start, not the
    /// trial's, so a slow start does not move it past the lookup.
    func sendIncomingMessage(to library: ChatLibrary, after: Seconds, look: @escaping @Sendable () -> Void = {}) {
        NamedThread.start("net.socket") { [self] in
            let until = MonotonicClock.now() + callbackParameters.deadline
            while firstStep("app looks up") == nil, MonotonicClock.now() < until { MonotonicClock.sleep(for: 0.001) }
            MonotonicClock.sleep(for: after)
            look()
            library.receive(Message(from: "u2", text: "are you there?"))
        }
    }

    /// The figures every library scenario reports.
    func metrics(_ library: ChatLibrary, rendered: CallProbe<Rendering>?) -> Metrics {
        var m = Metrics()
        m[CallbackMetric.latencyS] = callbackParameters.latency
        m[CallbackMetric.libraryHeldS] = library.heldTimes.max()
        m[CallbackMetric.incomingDelayS] = library.incomingDelays.first
        m[CallbackMetric.handlerCalls] = Double(library.handlerCalls)
        m[CallbackMetric.handlerIgnored] = Double(library.diagnostics.filter { $0.kind == .calledAgain }.count)
        m[CallbackMetric.handlerNeverCalled] = Double(library.diagnostics.filter { $0.kind == .neverCalled }.count)
        m[CallbackMetric.callbackCalls] = rendered.map { Double($0.count) }
        m[CallbackMetric.steps] = Double(progress.value)
        m[MetricKey.wall] = elapsed()
        return m
    }

    /// A scenario whose expected event never came: it did not hang (every wait has a
    /// deadline), it failed to measure.
    func failed(_ what: String, _ library: ChatLibrary? = nil) -> VariantRecord {
        VariantRecord(outcome: .failed, metrics: library.map { metrics($0, rendered: nil) } ?? Metrics(),
                      evidence: "\(what) within \(Format.seconds(callbackParameters.deadline))")
    }
}

/// A value written on one thread and read on another (a handler's queue, a watcher thread).
final class Shared<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    init(_ initial: Value) { value = Mutex(initial) }
    func get() -> Value { value.withLock { $0 } }
    func set(_ new: Value) { value.withLock { $0 = new } }
    func update<R>(_ change: (inout Value) -> R) -> R { value.withLock { change(&$0) } }
}

/// `12%`, `under 0.01%`, for evidence lines.
func percent(_ part: Double, _ whole: Double) -> String {
    guard whole > 0, part.isFinite else { return "—" }
    let ratio = part / whole
    return ratio < 0.0001 ? "under 0.01%" : Format.decimal(100 * ratio, places: ratio < 0.01 ? 2 : 0) + "%"
}

/// "; a same-moment control was held up 120 ms", when it was held up at all.
func stallNote(_ stall: Seconds) -> String {
    stall >= 0.005 ? "; a same-moment control was held up \(Format.seconds(stall))" : ""
}
