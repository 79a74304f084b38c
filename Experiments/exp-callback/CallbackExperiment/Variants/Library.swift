import LabHarness

/// What the chat-library variants share: the parameters, the app, the library, and the
/// figures every one of them reports. The steps go to the trial's one event log.
extension VariantContext {
    var callbackParameters: CallbackParameters { parameters(CallbackParameters.self) }

    /// The app, narrating its steps (with `prefix`, to tell apart the scenarios of one variant).
    func app(_ prefix: String = "") -> AppProfiles {
        AppProfiles(latency: callbackParameters.latency, narrate: narrator(prefix))
    }

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

    /// 1 when the first step starting with `label` ran on `queue`, else 0 (also when absent).
    func ran(_ label: String, on queue: String) -> Double { self.queue(of: label) == queue ? 1 : 0 }

    /// The figures every library scenario reports.
    func metrics(_ library: ChatLibrary, rendered: CallProbe<Rendering>?) -> Metrics {
        var m = Metrics()
        m[CallbackMetric.latencyS] = callbackParameters.latency
        if let held = library.heldTimes.max() { m[CallbackMetric.libraryHeldS] = held }
        if let delay = library.incomingDelays.first { m[CallbackMetric.incomingDelayS] = delay }
        m[CallbackMetric.handlerCalls] = Double(library.handlerCalls)
        m[CallbackMetric.handlerIgnored] = Double(library.diagnostics.filter { $0.kind == .calledAgain }.count)
        m[CallbackMetric.handlerNeverCalled] = Double(library.diagnostics.filter { $0.kind == .neverCalled }.count)
        if let rendered { m[CallbackMetric.callbackCalls] = Double(rendered.count) }
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

    /// How long the machine held up the same-moment control since the trial started.
    var stallSoFar: Seconds { machineDelay(from: startedAt, to: MonotonicClock.now()) }
}

/// `12%`, `under 0.01%`, for evidence lines.
func percent(_ part: Double, _ whole: Double) -> String {
    guard whole > 0, part.isFinite else { return "—" }
    let ratio = part / whole
    if ratio < 0.0001 { return "under 0.01%" }
    return Format.decimal(100 * ratio, places: ratio < 0.01 ? 2 : 0) + "%"
}

/// "; a same-moment control was held up 120 ms", when it was held up at all.
func stallNote(_ stall: Seconds) -> String {
    stall >= 0.005 ? "; a same-moment control was held up \(Format.seconds(stall))" : ""
}
