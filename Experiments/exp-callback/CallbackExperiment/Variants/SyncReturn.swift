import LabHarness

/// `sync-return`: the app's provider answers with a return value. The library calls it on
/// its own queue and must wait for the answer, so the lookup runs there and holds the queue;
/// a message arriving meanwhile waits for the lookup to end.
enum SyncReturn {
    static func run(_ context: VariantContext) -> VariantRecord {
        let p = context.callbackParameters, app = context.app()
        // The kernel id of the thread inside the app's lookup (0: none), so that another
        // thread can look at it while it waits.
        let inLookup = Shared<UInt64>(0)
        let library = context.library(.returning { ids in
            inLookup.set(ExecutionPlace.currentThreadID())
            defer { inLookup.set(0) }
            return app.lookUp(ids)
        })
        let rendered = context.open(on: library)
        // The mechanism, seen from the network's thread as its message arrives: the library's
        // thread is inside the app's lookup, waiting (not running), so the message must queue.
        let seen = Shared<String?>(nil)
        context.sendIncomingMessage(to: library, after: p.incomingAfter) {
            let tid = inLookup.get()
            guard tid != 0 else { return }
            let state = ExecutionPlace.kernelState(ofThread: tid)
            if state != .running {
                seen.set("the library's thread #\(tid) was inside the app's lookup (\(state.map { "kernel state \($0.rawValue)" } ?? "this platform does not tell its state")) when a message arrived")
            }
        }
        guard context.wait(until: { rendered.count > 0 && !library.incomingDelays.isEmpty }) else { return context.failed("the conversation or the incoming message did not show", library) }
        var m = context.metrics(library, rendered: rendered)
        let onLibrary = context.ran("app looks up", on: ChatLibrary.queueLabel)
        m.set(["lookup.on_library_queue": onLibrary, CallbackMetric.libraryThreadWaiting: seen.get() == nil ? 0 : 1])
        let held = library.heldTimes.max() ?? 0, waited = library.incomingDelays.first ?? 0
        // The message that arrived during the lookup was shown only once the lookup returned
        // (an order, not a length: a late sender shortens the wait, not the lesson).
        let queued = context.interval("library has the return value", "library shows an incoming message").map { $0 >= 0 } ?? false
        let symptom = onLibrary == 1 && held >= CallbackThreshold.heldWhole.value * p.latency && queued
        return VariantRecord(outcome: symptom ? .completed : .failed, metrics: m,
                             evidence: "the app's lookup ran on \(context.place(of: "app looks up")) and held the library's queue \(Format.seconds(held)) of a \(Format.seconds(p.latency)) lookup (\(Format.share(held, of: p.latency)); \(CallbackThreshold.heldWhole)); a message that arrived meanwhile waited \(Format.seconds(waited)), \(queued ? "until" : "not until") the lookup returned",
                             mechanism: .when(seen.get() != nil, seen.get() ?? "", otherwise: "the library's thread was not seen waiting inside the lookup when the message arrived"))
    }
}
