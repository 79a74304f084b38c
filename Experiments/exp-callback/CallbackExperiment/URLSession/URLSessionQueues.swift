import Foundation
import LabHarness

/// `urlsession-queues`: asked from the main thread, a real data task's completion handler runs on the
/// session's delegate queue, not the caller's thread; async `data(from:)` resumes a `@MainActor` caller on main.
enum URLSessionQueues {
    /// Where one handler, hop or resume ran, by key (`own`, `given.hop`, `async`).
    typealias Seen = (onDelegateQueue: Bool, onMainThread: Bool, bytes: Int, at: Seconds)

    static func run(_ context: VariantContext) throws -> VariantRecord {
        let server = try LoopbackServer(response: LoopbackResponse(bodySize: 10_000, headerDelay: 0.02))
        defer { server.stop(within: 2) }
        let caller = ExecutionPlace.current, url = server.url()
        let own = URLSession(configuration: .ephemeral, delegate: nil, delegateQueue: nil)
        let given = URLSession(
            configuration: .ephemeral, delegate: nil, delegateQueue: .serial(DecidingDelegate.queueLabel))
        defer { own.finishTasksAndInvalidate(); given.finishTasksAndInvalidate() }

        let seen = Shared<[String: Seen]>([:])
        for (key, session) in [("own", own), ("given", given)] {
            context.step(
                "app resumes a data task (session with \(key == "own" ? "its own delegate queue" : "delegate queue \(DecidingDelegate.queueLabel)"))"
            )
            session.dataTask(with: url) { data, _, _ in
                context.step("\(key) · completion handler runs")
                let here = (
                    OperationQueue.current === session.delegateQueue, Thread.isMainThread, data?.count ?? -1,
                    MonotonicClock.now()
                )
                seen.update { $0[key] = here }
                DispatchQueue.main.async {
                    context.step("\(key) · app's UI update runs after its hop to the main queue")
                    seen.update { $0["\(key).hop"] = (false, Thread.isMainThread, 0, MonotonicClock.now()) }
                }
            }.resume()
        }
        context.step("app awaits data(from:) in a @MainActor task")
        Task { @MainActor in
            let bytes = (try? await own.data(from: url))?.0.count ?? -1
            context.step("async · the task resumes after the await")
            seen.update { $0["async"] = (false, Thread.isMainThread, bytes, MonotonicClock.now()) }
        }
        guard context.wait(until: { ["own.hop", "given.hop", "async"].allSatisfy { seen.get()[$0] != nil } }) else {
            return context.failed("the handlers, the hops and the async resume did not all happen")
        }
        let all = seen.get(), resumed = all["async"]!
        var m = context.figures()
        m["caller.on_main_thread"] = caller.isMainThread ? 1 : 0
        var symptom = caller.isMainThread && resumed.onMainThread, onDelegateQueues = true
        for key in ["own", "given"] {
            let h = all[key]!, hop = all["\(key).hop"]!
            m.set(
                key,
                [
                    .handlerOnDelegateQueue: h.onDelegateQueue ? 1 : 0, .handlerOnMainThread: h.onMainThread ? 1 : 0,
                    .bytes: Double(h.bytes), .hopOnMainThread: hop.onMainThread ? 1 : 0, .hopS: hop.at - h.at,
                ])
            symptom = symptom && !h.onMainThread && hop.onMainThread && h.onDelegateQueue
            onDelegateQueues = onDelegateQueues && h.onDelegateQueue
        }
        m.set([
            "async.resumed_on_main_thread": resumed.onMainThread ? 1 : 0,
            CallbackMetric.asyncBytes: Double(resumed.bytes),
        ])
        let ownPlace = context.place(of: "own · completion handler")
        let givenPlace = context.place(of: "given · completion handler")
        let onOrOff = resumed.onMainThread ? "on" : "off", resumedPlace = context.place(of: "async · the task resumes")
        let evidence =
            "asked from \(caller.queue) (\(caller.thread)); the handlers ran off the main thread (own queue: \(ownPlace); "
            + "given queue: \(givenPlace)) and each hop landed on it; async data(from:) resumed its @MainActor caller "
            + "\(onOrOff) the main thread (\(resumedPlace))"
        return VariantRecord(
            outcome: symptom ? .completed : .failed, metrics: m, evidence: evidence,
            mechanism: mechanism(askedFromMain: caller.isMainThread, onDelegateQueues: onDelegateQueues))
    }

    /// The mechanism, seen whichever way the claim goes: the tasks were asked for from the main
    /// thread (the caller's thread the claim sets the handlers apart from), and each handler
    /// read `OperationQueue.current` where it ran. Whether that was its session's delegate queue
    /// is part of the symptom, so a Foundation that ran a handler elsewhere refutes the claim
    /// instead of leaving it unjudged.
    static func mechanism(askedFromMain: Bool, onDelegateQueues: Bool) -> Evidence {
        guard askedFromMain else { return .notSeen("the data tasks were not asked for from the main thread") }
        return .seen(
            onDelegateQueues
                ? "asked from the main thread; inside each handler OperationQueue.current was its session's delegate queue"
                : "asked from the main thread; a handler did not see its session's delegate queue as OperationQueue.current"
        )
    }
}
