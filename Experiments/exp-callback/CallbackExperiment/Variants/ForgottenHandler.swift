import LabHarness

/// `forgotten-handler`: the library's watchdog notices after its patience, reports the stall
/// and renders with user ids instead of waiting forever.
enum ForgottenHandler {
    static func run(_ context: VariantContext) -> VariantRecord {
        let p = context.callbackParameters
        let library = context.library(.completionHandler(context.app().forgetting))
        let rendered = context.open(on: library)
        let ended = context.wait(until: { rendered.count > 0 })
        var m = context.metrics(library, rendered: rendered)
        m["patience_s"] = p.patience
        guard ended else {  // waited past its own patience: the hang the library exists to prevent
            return VariantRecord(
                outcome: .deadlock, metrics: m,
                evidence: "the library was still waiting for the handler after \(Format.seconds(p.deadline))",
                mechanism: neverCalled(context, library))
        }
        let detected = context.interval("library hands the app", "library gives up"),
            idsOnly = rendered.first?.value.names == .idsOnly
        m.set([CallbackMetric.stallDetectedAfterS: detected, "rendered.ids_only": idsOnly ? 1 : 0])
        let report = library.diagnostics.first { $0.kind == .neverCalled }, stall = context.stallSoFar
        let inWindow =
            detected.map {
                $0 >= CallbackThreshold.notBeforePatience.value * p.patience
                    && $0 <= p.patience + CallbackThreshold.detectedWithin.value + stall
            } ?? false
        let outcome: Outcome = report == nil || !idsOnly ? .completed : inWindow ? .stalled : .failed
        let reported = report?.message ?? "the library rendered without reporting a stall"
        let after = detected.map(Format.seconds) ?? "—", within = CallbackThreshold.detectedWithin
        let renderedWith = idsOnly ? "user ids" : "names"
        let evidence =
            "\(reported); reported \(after) after handing the handler out (patience \(seconds: p.patience), "
            + "\(within) after it at most\(Format.stallNote(stall))); rendered with \(renderedWith)"
        return VariantRecord(
            outcome: outcome, metrics: m, evidence: evidence,
            mechanism: neverCalled(context, library))
    }

    /// The mechanism: the app's block ended without a call, and the handler stayed uncalled.
    static func neverCalled(_ context: VariantContext, _ library: ChatLibrary) -> Evidence {
        guard let appEnded = context.firstStep("app returns early")?.t, library.handlerCalls == 0 else {
            return .notSeen("the pending handler was not seen left uncalled by the app (\(library.handlerCalls) calls)")
        }
        let finished = context.firstStep("library gives up").map {
            "the library finished without it \(Format.seconds($0.t - appEnded)) later"
        }
        return .seen(
            "0 calls of the pending handler after the app's block ended; \(finished ?? "the library never finished")")
    }
}
