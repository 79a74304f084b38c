import LabHarness

/// `sync-return`: the app's provider answers with a return value. The library calls it on
/// its own queue and must wait for the answer, so the lookup runs there and holds the queue;
/// a message arriving meanwhile waits for the lookup to end.
enum SyncReturn {
    static func run(_ context: VariantContext) -> VariantRecord {
        let s = Scenario(context)
        let library = s.library(.returning(s.app.returning))
        let rendered = s.open(on: library)
        s.sendIncomingMessage(to: library, after: s.parameters.incomingAfter)
        guard s.wait(until: { rendered.count > 0 && !library.incomingDelays.isEmpty }) else {
            return s.failed("the conversation or the incoming message did not show", library)
        }
        var m = s.metrics(library, rendered: rendered)
        m[CallbackMetric.lookupOnLibraryQueue] = s.ran("app looks up", on: ChatLibrary.queueLabel)
        let held = library.heldTimes.max() ?? 0
        let waited = library.incomingDelays.first ?? 0
        return s.record(.completed, m,
                        "the app's lookup ran on \(s.place("app looks up")) and held the library's queue \(Format.seconds(held)); a message that arrived meanwhile waited \(Format.seconds(waited))")
    }
}
