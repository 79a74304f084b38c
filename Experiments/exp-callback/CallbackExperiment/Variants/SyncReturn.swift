import LabHarness

/// `sync-return`: the library must wait on its own queue for the provider's return value, so
/// the lookup holds that queue and a message arriving meanwhile waits.
enum SyncReturn {
    static func run(_ context: VariantContext) -> VariantRecord {
        let p = context.callbackParameters, app = context.app()
        // The kernel id of the thread inside the app's provider (0: none), for another thread to look at.
        let inLookup = Shared<UInt64>(0)
        let provide = app.returning
        let library = context.library(
            .returning { ids in
                inLookup.set(ExecutionPlace.currentThreadID())
                defer { inLookup.set(0) }
                return provide(ids)
            })
        let rendered = context.open(on: library)
        // The mechanism, seen from the network's thread as its message arrives: the library's thread
        // waits inside the lookup.
        let seen = Shared<String?>(nil)
        context.sendIncomingMessage(to: library, after: p.incomingAfter) {
            let tid = inLookup.get(), state = tid == 0 ? nil : ExecutionPlace.kernelState(ofThread: tid)
            guard tid != 0, state != .running else { return }
            let told = state.map { "kernel state \($0.rawValue)" } ?? "this platform does not tell its state"
            seen.set("the library's thread #\(tid) was inside the app's lookup (\(told)) when a message arrived")
        }
        guard context.wait(until: { rendered.count > 0 && !library.incomingDelays.isEmpty }) else {
            return context.failed("the conversation or the incoming message did not show", library)
        }
        var m = context.metrics(library, rendered: rendered)
        let onLibrary = context.ran("app looks up", on: ChatLibrary.queueLabel)
        m.set(["lookup.on_library_queue": onLibrary, CallbackMetric.libraryThreadWaiting: seen.get() == nil ? 0 : 1])
        let held = library.heldTimes.max() ?? 0, waited = library.incomingDelays.first ?? 0
        // The message was shown only once the lookup returned (an order: a late sender shortens the
        // wait, not the lesson).
        let queued =
            context.interval("library has the return value", "library shows an incoming message").map { $0 >= 0 }
            ?? false
        let symptom = onLibrary == 1 && held >= CallbackThreshold.heldWhole.value * p.latency && queued
        let lookupPlace = context.place(of: "app looks up"), share = Format.share(held, of: p.latency)
        let until = queued ? "until" : "not until"
        let evidence =
            "the app's lookup ran on \(lookupPlace) and held the library's queue \(seconds: held) of a "
            + "\(seconds: p.latency) lookup (\(share); \(CallbackThreshold.heldWhole)); a message that arrived "
            + "meanwhile waited \(seconds: waited), \(until) the lookup returned"
        return VariantRecord(
            outcome: symptom ? .completed : .failed, metrics: m, evidence: evidence,
            mechanism: .when(
                seen.get() != nil, seen.get() ?? "",
                otherwise: "the library's thread was not seen waiting inside the lookup when the message arrived"))
    }
}
