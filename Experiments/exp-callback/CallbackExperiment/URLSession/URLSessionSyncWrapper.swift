import Foundation
import LabHarness
import Synchronization

/// The synchronous wrapper around a real data task (xiangwangfeng's article): resume the task,
/// then block the calling thread on a semaphore that the completion handler signals.
///
/// On the main thread of a session whose delegate queue is the main queue, the handler is
/// queued for the very thread that waits for it: the response arrives in full and the wrapper
/// never returns (`urlsession-sync-main`, a deadlock the harness ends and takes the stacks of).
/// With a background delegate queue the handler needs nothing from the waiting thread and the
/// wrapper returns (`urlsession-sync-background`).
///
/// Progress counts the steps: 1 the task was resumed, 2 the server sent the whole response,
/// 3 the wrapper returned.
enum URLSessionSyncWrapper {
    /// What the server sends: a small body after a short delay.
    static let response = LoopbackResponse(bodySize: 1000, headerDelay: 0.05)

    /// The wrapper: resumes a data task and waits for its completion handler, at most until
    /// `deadline` (`.distantFuture` waits for good). Returns the body's size, or nil when the
    /// wait ended first. Never inlined: the deadlock's stacks name it (the handouts quote line 35).
    @inline(never)
    static func fetchSynchronously(
        _ url: URL, session: URLSession, deadline: DispatchTime, watch: Watch, onResumed: () -> Void
    ) -> Int? {
        let done = DispatchSemaphore(value: 0), size = Shared(-1)
        session.dataTask(with: url) { data, _, _ in
            watch.handlerCalls.update { $0 += 1 }
            size.set(data?.count ?? -1)
            done.signal()
        }.resume()
        onResumed()
        watch.enter()
        defer { watch.waiting.set(false) }
        // Blocks the calling thread: on the main thread, with the main queue as delegate queue, the
        // handler that would signal it waits for this very thread.
        if deadline == .distantFuture { done.wait() } else if done.wait(timeout: deadline) == .timedOut { return nil }
        return size.get()
    }

    /// The main-thread wrapper's stall window: its last step comes tens of ms after the resume;
    /// 2 s is four times the worst machine stall measured here (1 s, twice it, with `--quick`).
    /// A stall that ends the trial before the whole response arrived leaves its mechanism unseen.
    static func stallWindow(quick: Bool) -> Seconds { quick ? 1 : 2 }
    /// What the wrapper is doing, for a thread that looks at it from outside.
    final class Watch: Sendable {
        let waiting = Shared(false), handlerCalls = Shared(0), waiter = Shared<UInt64>(0)
        func enter() { waiter.set(ExecutionPlace.currentThreadID()); waiting.set(true) }
    }

    static func onMain(_ context: VariantContext) throws -> VariantRecord {
        if let refused = context.mainThreadRefusal(blocksItForGood: true) { return refused }
        return try measure(context, delegateQueue: .main, deadline: .distantFuture)
    }

    static func onBackground(_ context: VariantContext) throws -> VariantRecord {
        try measure(context, delegateQueue: .serial(DecidingDelegate.queueLabel), deadline: .now() + .seconds(10))
    }

    private static func measure(
        _ context: VariantContext, delegateQueue: OperationQueue, deadline: DispatchTime
    ) throws -> VariantRecord {
        let server = try LoopbackServer(response: response),
            session = URLSession(configuration: .ephemeral, delegate: nil, delegateQueue: delegateQueue)
        defer { session.invalidateAndCancel(); server.stop(within: 2) }
        var m: Metrics = [
            "delegate_queue.is_main": delegateQueue === OperationQueue.main ? 1 : 0,
            "caller.on_main_thread": Thread.isMainThread ? 1 : 0,
        ]
        let start = MonotonicClock.now(), base = m, watch = Watch()
        let size = fetchSynchronously(server.url(), session: session, deadline: deadline, watch: watch) {
            context.step("wrapper resumed the data task; now waits on its semaphore")
            // Evidence for the stuck case, from a thread that needs nothing the wrapper holds:
            // the whole response was sent, and 0.2 s later the wrapper still waited, handler not run.
            NamedThread.start("lab.served") {
                guard let sent = server.waitForCompletedResponses(within: 10) else { return }
                MonotonicClock.sleep(for: 0.2)
                let waiting = watch.waiting.get(), calls = watch.handlerCalls.get()
                let state = ExecutionPlace.kernelState(ofThread: watch.waiter.get())
                context.step("server has sent the whole response", at: sent)
                var c = base
                c.set([
                    CallbackMetric.serverCompletedAfterS: sent - start, CallbackMetric.wrapperWaiting: waiting ? 1 : 0,
                    CallbackMetric.wrapperHandlerCalls: Double(calls),
                    CallbackMetric.steps: Double(context.progress.value),
                ])
                let wait = waiting ? "still in the semaphore wait" : "out of the wait"
                let kernel = state?.rawValue ?? "not told", bytes = response.body.count
                let evidence =
                    "the server sent all \(bytes) bytes \(seconds: sent - start) after the resume; 0.2 s later the "
                    + "waiting thread was \(wait) (kernel state \(kernel)) and the handler had run \(calls) times"
                context.checkpoint(VariantRecord(outcome: .deadlock, metrics: c, evidence: evidence))
            }
        }
        guard let size else {
            return VariantRecord(outcome: .stalled, metrics: m, evidence: "the wrapper's bounded wait ran out")
        }
        let returnedAfter = MonotonicClock.now() - start
        context.step("wrapper returned \(size) bytes")
        m.set([
            CallbackMetric.wrapperReturnedAfterS: returnedAfter, CallbackMetric.wrapperBytes: Double(size),
            CallbackMetric.steps: Double(context.progress.value),
        ])
        return VariantRecord(
            outcome: .completed, metrics: m,
            evidence: "the wrapper returned \(size) bytes after \(Format.seconds(returnedAfter))")
    }
}
