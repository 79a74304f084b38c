import LabHarness

/// `completion-handler`: the provider moves the lookup to the app's queue and returns at once,
/// so the library's queue stays free; the library hops back to it to render.
enum CompletionHandler {
    static func run(_ context: VariantContext) -> VariantRecord {
        let p = context.callbackParameters
        let library = context.library(.completionHandler(context.app().onAppQueue))
        let rendered = context.open(on: library)
        context.sendIncomingMessage(to: library, after: p.incomingAfter)
        guard context.wait(until: { rendered.count > 0 && !library.incomingDelays.isEmpty }) else {
            return context.failed("the conversation or the incoming message did not show", library)
        }
        var m = context.metrics(library, rendered: rendered)
        let handlerOnApp = context.ran("app calls the fetchProfiles handler", on: AppProfiles.queueLabel)
        let renderOnLibrary = context.ran("library renders", on: ChatLibrary.queueLabel)
        m.merge([
            "lookup.on_app_queue": context.ran("app looks up", on: AppProfiles.queueLabel),
            "handler.on_app_queue": handlerOnApp,
            "render.on_library_queue": renderOnLibrary,
        ])
        m["hop_s"] = context.interval("app calls the fetchProfiles handler", "library is back")
        let held = library.heldTimes.max() ?? .infinity, waited = library.incomingDelays.first ?? .infinity,
            stall = context.stallSoFar
        // The library's queue served a message while the app's lookup still ran.
        let free =
            context.stepsInOrder(
                "app looks up", "library shows an incoming message", "app calls the fetchProfiles handler")
            && context.queue(of: "library shows an incoming message") == ChatLibrary.queueLabel
        let symptom =
            held < CallbackThreshold.heldFree.value * p.latency + stall
            && waited < CallbackThreshold.waitedFree.value * p.latency + stall && handlerOnApp == 1
            && renderOnLibrary == 1 && free
        let into = context.interval("app looks up", "library shows an incoming message") ?? 0
        let share = Format.share(held, of: p.latency), stallNote = Format.stallNote(stall)
        let heldFree = CallbackThreshold.heldFree, waitedFree = CallbackThreshold.waitedFree
        let handlerPlace = context.place(of: "app calls the fetchProfiles handler")
        let renderPlace = context.place(of: "library renders")
        let evidence =
            "the library's queue was held \(seconds: held) of a \(seconds: p.latency) lookup "
            + "(\(share); \(heldFree)\(stallNote)); a message that arrived meanwhile waited \(seconds: waited) "
            + "(\(waitedFree)); the handler was called on \(handlerPlace); the library rendered on \(renderPlace)"
        return VariantRecord(
            outcome: symptom ? .completed : .failed, metrics: m, evidence: evidence,
            mechanism: context.libraryGaveUp(library)
                ?? mechanism(lookupOnAppQueue: m["lookup.on_app_queue"] == 1, freeAfter: free ? into : nil))
    }

    /// The mechanism, seen whichever way the claim goes: the app moved its lookup to its own queue
    /// (the setting the claim is about) and a message was sent to the library while it ran.
    /// Whether the library's queue showed that message before the handler came is the symptom,
    /// so a library that holds its queue while it waits for the handler refutes the claim
    /// instead of leaving it unjudged. `freeAfter`: how far into the lookup the message was shown,
    /// when it was shown before the handler came.
    static func mechanism(lookupOnAppQueue: Bool, freeAfter: Seconds?) -> Evidence {
        guard lookupOnAppQueue else {
            return .notSeen("the app's lookup was not seen on \(AppProfiles.queueLabel)")
        }
        guard let into = freeAfter else {
            return .seen(
                "the lookup ran on \(AppProfiles.queueLabel), and \(ChatLibrary.queueLabel) showed no message before the handler came"
            )
        }
        return .seen(
            "the lookup ran on \(AppProfiles.queueLabel), and \(ChatLibrary.queueLabel) showed an incoming message \(seconds: into) into it, before the handler came"
        )
    }
}
