import LabHarness

/// `forgotten-handler`: the app's provider never calls its completion handler. The
/// library's watchdog (the harness's `Watchdog` over a counter only the handler advances)
/// notices after the library's patience, and the library reports the stall and renders with
/// user ids instead of waiting forever.
enum ForgottenHandler {
    static func run(_ context: VariantContext) -> VariantRecord {
        let s = Scenario(context)
        let library = s.library(.completionHandler(s.app.forgetting))
        let rendered = s.open(on: library)
        guard s.wait(until: { rendered.count > 0 }) else {
            // The library waited past its own patience: that is the hang it exists to prevent.
            var m = s.metrics(library, rendered: rendered)
            m[CallbackMetric.patienceS] = s.parameters.patience
            return s.record(.deadlock, m, "the library was still waiting for the handler after \(Format.seconds(s.parameters.deadline))")
        }
        var m = s.metrics(library, rendered: rendered)
        m[CallbackMetric.patienceS] = s.parameters.patience
        if let handed = s.steps.first("library hands the app"), let gaveUp = s.steps.first("library gives up") {
            m[CallbackMetric.stallDetectedAfterS] = gaveUp.t - handed.t
        }
        let idsOnly = rendered.first?.value.names == .idsOnly
        m[CallbackMetric.renderedIdsOnly] = idsOnly ? 1 : 0
        let report = library.diagnostics.first { $0.kind == .neverCalled }
        let outcome: Outcome = report != nil && idsOnly ? .stalled : .completed
        return s.record(outcome, m, report?.message ?? "the library rendered without reporting a stall")
    }
}
