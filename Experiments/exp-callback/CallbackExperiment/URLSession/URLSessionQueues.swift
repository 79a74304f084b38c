import Foundation
import LabHarness
import Synchronization

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
        let s = Scenario(context)
        let server = try LoopbackServer(response: LoopbackResponse(bodySize: 10_000, headerDelay: 0.02))
        defer { server.stop(within: 2) }
        let caller = ExecutionPlace.current
        let appQueue = OperationQueue()
        appQueue.name = "app.delegate"
        appQueue.maxConcurrentOperationCount = 1
        let ownQueueSession = URLSession(configuration: .ephemeral, delegate: nil, delegateQueue: nil)
        let givenQueueSession = URLSession(configuration: .ephemeral, delegate: nil, delegateQueue: appQueue)
        defer {
            ownQueueSession.finishTasksAndInvalidate()
            givenQueueSession.finishTasksAndInvalidate()
        }

        let handlers = SeenBoard()
        let hops = SeenBoard()
        for (key, session) in [("own", ownQueueSession), ("given", givenQueueSession)] {
            s.steps.record("app resumes a data task (session with \(key == "own" ? "its own delegate queue" : "delegate queue app.delegate"))")
            session.dataTask(with: server.url()) { [steps = s.steps] data, _, _ in
                steps.record("\(key) · completion handler runs")
                let seen = Seen(onDelegateQueue: OperationQueue.current === session.delegateQueue, onMainThread: Thread.isMainThread,
                                bytes: data?.count ?? -1, at: MonotonicClock.now())
                handlers.set(key, seen)
                DispatchQueue.main.async {
                    steps.record("\(key) · app's UI update runs after its hop to the main queue")
                    hops.set(key, Seen(onMainThread: Thread.isMainThread, at: MonotonicClock.now()))
                }
            }.resume()
        }
        let resumed = SeenBoard()
        let url = server.url()
        s.steps.record("app awaits data(from:) in a @MainActor task")
        Task { @MainActor [steps = s.steps] in
            let bytes = (try? await ownQueueSession.data(from: url))?.0.count ?? -1
            steps.record("async · the task resumes after the await")
            resumed.set("async", Seen(onMainThread: Thread.isMainThread, bytes: bytes, at: MonotonicClock.now()))
        }
        guard s.wait(until: { hops.all.count == 2 && resumed.all.count == 1 }) else {
            return s.record(.failed, Metrics(), "the handlers, the hops and the async resume did not all happen within \(Format.seconds(s.parameters.deadline))")
        }
        var m = Metrics()
        m[CallbackMetric.callerOnMainThread] = caller.isMainThread ? 1 : 0
        let handled = handlers.all, hopped = hops.all
        for key in ["own", "given"] {
            let h = handled[key] ?? Seen(), hop = hopped[key] ?? Seen()
            m["\(key).handler.on_delegate_queue"] = h.onDelegateQueue ? 1 : 0
            m["\(key).handler.on_main_thread"] = h.onMainThread ? 1 : 0
            m["\(key).bytes"] = Double(h.bytes)
            m["\(key).hop.on_main_thread"] = hop.onMainThread ? 1 : 0
            m["\(key).hop_s"] = hop.at - h.at
        }
        let a = resumed.all["async"] ?? Seen()
        m[CallbackMetric.asyncResumedOnMainThread] = a.onMainThread ? 1 : 0
        m[CallbackMetric.asyncBytes] = Double(a.bytes)
        m[CallbackMetric.steps] = Double(s.steps.all.count)
        m[CallbackMetric.wallS] = context.elapsed()
        return s.record(.completed, m,
                        "asked from \(caller.queue) (\(caller.thread)); own queue: the handler ran on \(s.place("own · completion handler")); given queue: on \(s.place("given · completion handler")); async: resumed on \(s.place("async · the task resumes"))")
    }
}

/// Where each handler ran, by key, written from the queues that ran them.
private final class SeenBoard: Sendable {
    private let seen = Mutex<[String: URLSessionQueues.Seen]>([:])
    func set(_ key: String, _ value: URLSessionQueues.Seen) { seen.withLock { $0[key] = value } }
    var all: [String: URLSessionQueues.Seen] { seen.withLock { $0 } }
}
