import LabHarness

/// Something the library or the app says it is doing, as a step of the scenario.
public typealias Narrate = @Sendable (String) -> Void

/// What the variants share: the library and the app narrate their steps through `context.step`.
extension VariantContext {
    var callbackParameters: CallbackParameters { parameters(CallbackParameters.self) }
    /// A narrator for the library and the app that records steps with `prefix` before each label.
    func narrator(_ prefix: String = "") -> Narrate { { [self] label in step(prefix + label) } }

    /// Waits until `condition` holds, up to the scenario's deadline, with the main queue turning.
    func wait(until condition: () -> Bool) -> Bool {
        MainQueueFriendlyWait.until(within: callbackParameters.deadline, condition)
    }

    /// The app and the library, narrating their steps (with `prefix`, to tell apart the scenarios of one variant).
    func app(_ prefix: String = "") -> AppProfiles {
        AppProfiles(latency: callbackParameters.latency, narrate: narrator(prefix))
    }
    func library(_ source: ChatLibrary.ProfileSource, _ prefix: String = "") -> ChatLibrary {
        ChatLibrary(source: source, patience: callbackParameters.patience, narrate: narrator(prefix))
    }

    /// Opens the sample conversation on `library` with a callback that records where it ran,
    /// then runs the app's `then` in it.
    func open(on library: ChatLibrary, then: @escaping @Sendable () -> Void = {}) -> CallProbe<Rendering> {
        let rendered = CallProbe<Rendering>()
        step("app opens the conversation")
        library.open(.sample) { [self] rendering in
            step("app gets the rendered conversation (its callback runs)")
            rendered.record(rendering)
            then()
        }
        return rendered
    }

    /// A message from the network, `after` seconds into the app's lookup (not the trial: a slow
    /// start cannot move it past the lookup), from a thread of its own; `look` runs just before.
    func sendIncomingMessage(to library: ChatLibrary, after: Seconds, look: @escaping @Sendable () -> Void = {}) {
        NamedThread.start("net.socket") { [self] in
            let until = MonotonicClock.now() + callbackParameters.deadline
            while firstStep("app looks up") == nil, MonotonicClock.now() < until { MonotonicClock.sleep(for: 0.001) }
            MonotonicClock.sleep(for: after)
            look()
            library.receive(Message(from: "u2", text: "are you there?"))
        }
    }

    /// The figures every scenario reports: its steps so far and its wall time.
    func figures() -> Metrics {
        [CallbackMetric.steps: Double(progress.value), Metrics.wall: elapsed()]
    }

    /// The figures every library scenario reports.
    func metrics(_ library: ChatLibrary, rendered: CallProbe<Rendering>?) -> Metrics {
        var m = figures()
        func count(_ kind: Diagnostic.Kind) -> Double { Double(library.diagnostics.filter { $0.kind == kind }.count) }
        m.set([
            CallbackMetric.latencyS: callbackParameters.latency, CallbackMetric.libraryHeldS: library.heldTimes.max(),
            CallbackMetric.incomingDelayS: library.incomingDelays.first,
            CallbackMetric.handlerCalls: Double(library.handlerCalls),
            CallbackMetric.handlerIgnored: count(.calledAgain), "handler.never_called": count(.neverCalled),
            CallbackMetric.callbackCalls: rendered.map { Double($0.count) },
        ])
        return m
    }

    /// A scenario whose expected event never came: not a hang (every wait has a deadline), a
    /// failure to measure. When a same-moment control lost the deadline's slack (what it allows
    /// beyond the lookup and the library's patience) meanwhile, the machine can explain it: the
    /// trial then says so and is graded neither way.
    func failed(_ what: String, _ library: ChatLibrary? = nil) -> VariantRecord {
        let p = callbackParameters, stall = stallSoFar, slack = p.deadline - p.latency - p.patience
        return VariantRecord(
            outcome: .failed, metrics: library.map { metrics($0, rendered: nil) } ?? Metrics(),
            evidence: "\(what) within \(Format.seconds(p.deadline))",
            mechanism: stall >= slack
                ? .notSeen(
                    "a same-moment control was held up \(Format.seconds(stall)) meanwhile, as much as the "
                        + "\(Format.seconds(slack)) the deadline allows beyond the lookup and the library's patience")
                : nil)
    }

    /// Why a scenario whose app calls its handler within the lookup does not show its claim's path:
    /// the library's watchdog settled the operation first, its patience run out, which only a
    /// stall of the app's reply (or of the machine) makes happen there; `nil` when it did not.
    func libraryGaveUp(_ library: ChatLibrary) -> Evidence? {
        guard library.diagnostics.contains(where: { $0.kind == .neverCalled }) else { return nil }
        return .notSeen(
            "the library's watchdog settled the operation before the app's call (its patience of "
                + "\(Format.seconds(callbackParameters.patience)) ran out; a same-moment control was held up "
                + "\(Format.seconds(stallSoFar)) in the trial), so the app's calls met an operation already settled")
    }
}
