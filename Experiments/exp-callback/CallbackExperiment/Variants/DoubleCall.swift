import LabHarness

/// `double-call`: the app calls its completion handler with the profiles, then again from a
/// retry path on another queue. The library's once-guard lets the first call through,
/// ignores the second and reports it; the conversation is rendered once.
enum DoubleCall {
    static func run(_ context: VariantContext) -> VariantRecord {
        let s = Scenario(context)
        let library = s.library(.completionHandler(s.app.twice(gap: s.parameters.secondCallGap)))
        let rendered = s.open(on: library)
        // Both calls made, and the library reacted to the second: ignored it, or (without a
        // working guard) rendered again.
        guard s.wait(until: { rendered.count > 0 && library.handlerCalls >= 2 && (s.steps.first("library ignores") != nil || rendered.count > 1) }) else {
            return s.failed("the conversation or the second handler call did not come", library)
        }
        // Room for a second rendering to show up, if the guard let the second call through.
        MonotonicClock.sleep(for: s.parameters.secondCallGap)
        var m = s.metrics(library, rendered: rendered)
        if let first = s.steps.first("app calls the fetchProfiles handler"),
           let second = s.steps.first("app calls the fetchProfiles handler again") {
            m[CallbackMetric.secondCallAfterS] = second.t - first.t
        }
        let ignored = library.diagnostics.first { $0.kind == .calledAgain }
        let outcome: Outcome = rendered.count == 1 ? .completed : .renderedTwice
        return s.record(outcome, m, ignored?.message ?? "no second call was reported; the conversation was rendered \(rendered.count) times")
    }
}
