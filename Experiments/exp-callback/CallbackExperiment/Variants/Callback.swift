import Dispatch
import LabHarness

/// `callback`: the library tells the app its own work is done. The app opens the
/// conversation from the main thread; the callback arrives on the library's queue, because
/// the library executes it where its work ended. An app that wants to touch its UI hops to the
/// main queue itself.
enum Callback {
    static func run(_ context: VariantContext) -> VariantRecord {
        let s = Scenario(context)
        let library = s.library(.completionHandler(s.app.fromCache))
        let opener = ExecutionPlace.current
        let uiUpdated = CallProbe<Void>()
        let rendered = CallProbe<Rendering>()
        s.steps.record("app opens the conversation")
        library.open(.sample) { [steps = s.steps] rendering in
            steps.record("app gets the rendered conversation (its callback runs)")
            rendered.record(rendering)
            DispatchQueue.main.async {
                steps.record("app updates its UI after hopping to the main queue")
                uiUpdated.record()
            }
        }
        guard s.wait(until: { uiUpdated.count > 0 }) else {
            return s.failed("the callback and the UI update did not both happen", library)
        }
        var m = s.metrics(library, rendered: rendered)
        let callback = s.steps.first("app gets the rendered")
        let ui = s.steps.first("app updates its UI")
        m[CallbackMetric.callerOnMainThread] = opener.isMainThread ? 1 : 0
        m[CallbackMetric.callbackOnLibraryQueue] = callback?.place.queue == ChatLibrary.queueLabel ? 1 : 0
        m[CallbackMetric.callbackOnMainThread] = callback?.place.isMainThread == true ? 1 : 0
        m[CallbackMetric.uiOnMainThread] = ui?.place.isMainThread == true ? 1 : 0
        if let callback, let ui { m[CallbackMetric.hopS] = ui.t - callback.t }
        return s.record(.completed, m,
                        "opened from \(opener.queue) (\(opener.thread)); the callback ran on \(s.place("app gets the rendered")); the UI update on \(s.place("app updates its UI"))")
    }
}
