import LabHarness

/// `double-call`: the app calls its handler again from a retry path on another queue.
enum DoubleCall {
    static func run(_ context: VariantContext) -> VariantRecord {
        let p = context.callbackParameters
        let library = context.library(.completionHandler(context.app().twice(gap: p.secondCallGap)))
        let rendered = context.open(on: library)
        // Both calls made, and the library reacted to the second: ignored it, or (without a
        // working guard) rendered again.
        guard
            context.wait(until: {
                rendered.count > 0 && library.handlerCalls >= 2
                    && (context.firstStep("library ignores") != nil || rendered.count > 1)
            })
        else { return context.failed("the conversation or the second handler call did not come", library) }
        // Room for a second rendering to show up, if the guard let the second call through.
        MonotonicClock.sleep(for: p.secondCallGap)
        var m = context.metrics(library, rendered: rendered)
        m["second_call_after_s"] = context.interval(
            "app calls the fetchProfiles handler", "app calls the fetchProfiles handler again")
        let ignored = library.diagnostics.first { $0.kind == .calledAgain }
        let outcome: Outcome =
            rendered.count > 1 ? .renderedTwice : library.handlerCalls == 2 && ignored != nil ? .completed : .failed
        let calls = library.handlerCalls, ignoredCount = ignored == nil ? 0 : 1
        let times = rendered.count == 1 ? "1 time" : "\(rendered.count) times"
        let secondPlace = context.place(of: "app calls the fetchProfiles handler again")
        let guardSaid = ignored.map { "refused it: \($0.message)" } ?? "let it through"
        return VariantRecord(
            outcome: outcome, metrics: m,
            evidence: "\(calls) handler calls, \(ignoredCount) ignored; the conversation was rendered \(times)",
            mechanism: context.libraryGaveUp(library) ?? .when(
                library.handlerCalls == 2 && context.firstStep("app calls the fetchProfiles handler again") != nil,
                "the second call reached the once-guard from \(secondPlace), which \(guardSaid)",
                otherwise: "the second call was not seen reaching the library (\(library.handlerCalls) calls)"))
    }
}
