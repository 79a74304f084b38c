import Dispatch
import LabHarness

/// `callback`: opened from the main thread, the callback arrives on the library's queue, where
/// the library's work ended; the app hops to the main queue itself.
enum Callback {
    static func run(_ context: VariantContext) -> VariantRecord {
        let library = context.library(.completionHandler(context.app().fromCache))
        let opener = ExecutionPlace.current
        let places = Shared<(callback: ExecutionPlace?, ui: ExecutionPlace?)>((nil, nil))
        let rendered = context.open(on: library) {  // the app's callback
            places.update { $0.callback = .current }
            DispatchQueue.main.async {
                let here = ExecutionPlace.current
                context.step("app updates its UI after hopping to the main queue")
                places.update { $0.ui = here }  // after the step: a waiter that sees it sees the step
            }
        }
        guard context.wait(until: { places.get().ui != nil }) else {
            return context.failed("the callback and the UI update did not both happen", library)
        }
        var m = context.metrics(library, rendered: rendered)
        let (callback, ui) = places.get()
        let onLibrary = callback?.queue == ChatLibrary.queueLabel, onMain = callback?.isMainThread == true
        m.merge([
            "caller.on_main_thread": opener.isMainThread ? 1 : 0, "callback.on_library_queue": onLibrary ? 1 : 0,
            "callback.on_main_thread": onMain ? 1 : 0, "ui.on_main_thread": ui?.isMainThread == true ? 1 : 0,
        ])
        m["hop_s"] = context.interval("app gets the rendered", "app updates its UI")
        let renderedOn = context.firstStep("library renders")?.thread,
            calledOn = context.firstStep("app gets the rendered")?.thread
        // The symptom includes the block running on the very thread that had just rendered.
        let symptom =
            opener.isMainThread && onLibrary && !onMain && ui?.isMainThread == true
            && renderedOn != nil && renderedOn == calledOn
        let callbackPlace = context.place(of: "app gets the rendered"),
            uiPlace = context.place(of: "app updates its UI")
        return VariantRecord(
            outcome: symptom ? .completed : .failed, metrics: m,
            evidence:
                "opened from \(opener.queue) (\(opener.thread)); the callback ran on \(callbackPlace); the UI update on \(uiPlace)",
            mechanism: mechanism(renderedOn: renderedOn, calledOn: calledOn, queue: callback?.queue))
    }

    /// The mechanism, seen whichever way the claim goes: the library's rendering and the app's
    /// block were both seen with their threads, and the block's queue could be read. Whether the
    /// block ran where the rendering ended is the symptom, so a library that moved the call
    /// elsewhere refutes the claim instead of leaving it unjudged.
    static func mechanism(renderedOn: String?, calledOn: String?, queue: String?) -> Evidence {
        guard let renderedOn, let calledOn, let queue, queue != "?" else {
            return .notSeen(
                "the rendering's thread, the callback's thread or its queue was not seen (rendered on \(renderedOn ?? "—"), called on \(calledOn ?? "—"), queue \(queue ?? "—"))"
            )
        }
        return .seen(
            renderedOn == calledOn
                ? "the callback ran on the thread and queue that had just rendered (\(calledOn))"
                : "the library rendered on \(renderedOn) and the callback ran on \(calledOn) (queue \(queue))")
    }
}
