import Foundation
import LabHarness

/// `urlsession-queues`: which queue runs a real data task's completion handler, asked from the
/// main thread. The completion-handler API runs it on the session's delegate queue (the
/// session's own serial queue when none is given, or the one given), never on the caller's
/// thread; the app hops to a queue of its choosing (here the main queue) itself. The async API
/// resumes the caller where it awaited: a `@MainActor` caller on the main thread.
enum URLSessionQueues {
    /// Where one handler ran.
    struct Seen: Sendable {
        var onDelegateQueue = false
        var onMainThread = false
        var bytes = -1
        var at: Seconds = 0
    }

    static func run(_ context: VariantContext) throws -> VariantRecord {
        let server = try LoopbackServer(response: LoopbackResponse(bodySize: 10_000, headerDelay: 0.02))
        defer { server.stop(within: 2) }
        let caller = ExecutionPlace.current
        let appQueue = OperationQueue()
        appQueue.name = DecidingDelegate.queueLabel
        appQueue.maxConcurrentOperationCount = 1
        let ownQueueSession = URLSession(configuration: .ephemeral, delegate: nil, delegateQueue: nil)
        let givenQueueSession = URLSession(configuration: .ephemeral, delegate: nil, delegateQueue: appQueue)
        defer {
            ownQueueSession.finishTasksAndInvalidate()
            givenQueueSession.finishTasksAndInvalidate()
        }

        // Where each handler, hop and resume ran, by key.
        let seen = Shared<[String: Seen]>([:])
        for (key, session) in [("own", ownQueueSession), ("given", givenQueueSession)] {
            context.step("app resumes a data task (session with \(key == "own" ? "its own delegate queue" : "delegate queue \(DecidingDelegate.queueLabel)"))")
            session.dataTask(with: server.url()) { data, _, _ in
                context.step("\(key) · completion handler runs")
                let here = Seen(onDelegateQueue: OperationQueue.current === session.delegateQueue, onMainThread: Thread.isMainThread,
                                bytes: data?.count ?? -1, at: MonotonicClock.now())
                seen.update { $0[key] = here }
                DispatchQueue.main.async {
                    context.step("\(key) · app's UI update runs after its hop to the main queue")
                    seen.update { $0["\(key).hop"] = Seen(onMainThread: Thread.isMainThread, at: MonotonicClock.now()) }
                }
            }.resume()
        }
        let url = server.url()
        context.step("app awaits data(from:) in a @MainActor task")
        Task { @MainActor in
            let bytes = (try? await ownQueueSession.data(from: url))?.0.count ?? -1
            context.step("async · the task resumes after the await")
            seen.update { $0["async"] = Seen(onMainThread: Thread.isMainThread, bytes: bytes, at: MonotonicClock.now()) }
        }
        guard context.wait(until: { let s = seen.get(); return s["own.hop"] != nil && s["given.hop"] != nil && s["async"] != nil }) else {
            return context.failed("the handlers, the hops and the async resume did not all happen")
        }
        var m = Metrics()
        m[CallbackMetric.callerOnMainThread] = caller.isMainThread ? 1 : 0
        let all = seen.get()
        var symptom = caller.isMainThread, onDelegateQueues = true
        for key in ["own", "given"] {
            let h = all[key] ?? Seen(), hop = all["\(key).hop"] ?? Seen()
            m[CallbackMetric.of(key, "handler.on_delegate_queue")] = h.onDelegateQueue ? 1 : 0
            m[CallbackMetric.of(key, "handler.on_main_thread")] = h.onMainThread ? 1 : 0
            m[CallbackMetric.of(key, "bytes")] = Double(h.bytes)
            m[CallbackMetric.of(key, "hop.on_main_thread")] = hop.onMainThread ? 1 : 0
            m[CallbackMetric.of(key, "hop_s")] = hop.at - h.at
            symptom = symptom && !h.onMainThread && hop.onMainThread
            onDelegateQueues = onDelegateQueues && h.onDelegateQueue
        }
        let a = all["async"] ?? Seen()
        symptom = symptom && a.onMainThread
        m[CallbackMetric.asyncResumedOnMainThread] = a.onMainThread ? 1 : 0
        m[CallbackMetric.asyncBytes] = Double(a.bytes)
        m[CallbackMetric.steps] = Double(context.progress.value)
        m[MetricKey.wall] = context.elapsed()
        let own = context.place(of: "own · completion handler"), given = context.place(of: "given · completion handler")
        return VariantRecord(outcome: symptom ? .completed : .failed, metrics: m,
                             evidence: "asked from \(caller.queue) (\(caller.thread)); the handlers ran off the main thread (own queue: \(own); given queue: \(given)), each hop to main took \(Format.seconds(m[CallbackMetric.of("own", "hop_s")] ?? 0)) and \(Format.seconds(m[CallbackMetric.of("given", "hop_s")] ?? 0)); async data(from:) resumed its @MainActor caller \(a.onMainThread ? "on" : "off") the main thread (\(context.place(of: "async · the task resumes")))",
                             mechanism: .when(onDelegateQueues, "inside each handler OperationQueue.current was its session's delegate queue",
                                              otherwise: "a handler did not see its session's delegate queue as OperationQueue.current"))
    }
}
