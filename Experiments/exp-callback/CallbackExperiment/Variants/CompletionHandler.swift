import LabHarness

/// `completion-handler`: the app's provider gets a completion handler, moves the lookup to
/// its own queue and returns at once. The library's queue is free during the lookup (an
/// incoming message shows immediately); the handler is called from the app's queue, and the
/// library hops back to its own queue to render.
enum CompletionHandler {
    static func run(_ context: VariantContext) -> VariantRecord {
        let s = Scenario(context)
        let library = s.library(.completionHandler(s.app.onAppQueue))
        let rendered = s.open(on: library)
        s.sendIncomingMessage(to: library, after: s.parameters.incomingAfter)
        guard s.wait(until: { rendered.count > 0 && !library.incomingDelays.isEmpty }) else {
            return s.failed("the conversation or the incoming message did not show", library)
        }
        var m = s.metrics(library, rendered: rendered)
        m[CallbackMetric.lookupOnAppQueue] = s.ran("app looks up", on: AppProfiles.queueLabel)
        m[CallbackMetric.handlerOnAppQueue] = s.ran("app calls the fetchProfiles handler", on: AppProfiles.queueLabel)
        m[CallbackMetric.renderOnLibraryQueue] = s.ran("library renders", on: ChatLibrary.queueLabel)
        if let call = s.steps.first("app calls the fetchProfiles handler"), let back = s.steps.first("library is back") {
            m[CallbackMetric.hopS] = back.t - call.t
        }
        let held = library.heldTimes.max() ?? 0
        return s.record(.completed, m,
                        "the library's queue was held \(Format.seconds(held)); the handler was called on \(s.place("app calls the fetchProfiles handler")); the library rendered on \(s.place("library renders"))")
    }
}
