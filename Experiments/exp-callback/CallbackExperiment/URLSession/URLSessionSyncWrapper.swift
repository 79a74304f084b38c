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
    /// wait ended first. Never inlined: the deadlock's stacks name it.
    @inline(never)
    static func fetchSynchronously(_ url: URL, session: URLSession, deadline: DispatchTime, onResumed: () -> Void) -> Int? {
        let done = DispatchSemaphore(value: 0)
        let size = SizeBox()
        session.dataTask(with: url) { data, _, _ in
            size.set(data?.count ?? -1)
            done.signal()
        }.resume()
        onResumed()
        // Blocks the calling thread: with the main queue as delegate queue and the main thread
        // here, the handler that would signal this waits for this very thread.
        if deadline == .distantFuture {
            done.wait()
        } else if done.wait(timeout: deadline) == .timedOut {
            return nil
        }
        return size.get()
    }

    static func onMain(_ context: VariantContext) throws -> VariantRecord {
        guard context.inChild, Thread.isMainThread else {
            return VariantRecord(outcome: .failed, evidence: "blocks the main thread for good: runs only as a child trial, on its main thread")
        }
        return try measure(context, delegateQueue: .main, deadline: .distantFuture)
    }

    static func onBackground(_ context: VariantContext) throws -> VariantRecord {
        let queue = OperationQueue()
        queue.name = "app.delegate"
        queue.maxConcurrentOperationCount = 1
        return try measure(context, delegateQueue: queue, deadline: .now() + .seconds(10))
    }

    private static func measure(_ context: VariantContext, delegateQueue: OperationQueue, deadline: DispatchTime) throws -> VariantRecord {
        let server = try LoopbackServer(response: response)
        defer { server.stop(within: 2) }
        let session = URLSession(configuration: .ephemeral, delegate: nil, delegateQueue: delegateQueue)
        defer { session.invalidateAndCancel() }
        let steps = StepLog(startedAt: context.startedAt, progress: context.progress)
        let mainQueue = delegateQueue === OperationQueue.main
        var m = Metrics()
        m[CallbackMetric.delegateQueueIsMain] = mainQueue ? 1 : 0
        m[CallbackMetric.callerOnMainThread] = Thread.isMainThread ? 1 : 0
        let start = MonotonicClock.now()
        let base = m
        let size = fetchSynchronously(server.url(), session: session, deadline: deadline) {
            steps.record("wrapper resumed the data task; now waits on its semaphore")
            // Evidence for the stuck case, from a thread that needs nothing the wrapper holds:
            // the whole response reached the client, and the wrapper still waited.
            let served = steps
            NamedThread.start("lab.served") {
                let until = MonotonicClock.now() + 10
                while server.counts.responsesCompleted < 1, MonotonicClock.now() < until { MonotonicClock.sleep(for: 0.005) }
                guard server.counts.responsesCompleted >= 1 else { return }
                served.record("server has sent the whole response")
                var c = base
                c[CallbackMetric.serverCompletedAfterS] = MonotonicClock.now() - start
                c[CallbackMetric.steps] = Double(context.progress.value)
                context.checkpoint(VariantRecord(outcome: .deadlock, metrics: c,
                                                 evidence: "the server sent all \(response.body.count) bytes \(Format.seconds(MonotonicClock.now() - start)) after the resume; the wrapper still waits",
                                                 events: served.events))
            }
        }
        guard let size else {
            return VariantRecord(outcome: .stalled, metrics: m, evidence: "the wrapper's bounded wait ran out", events: steps.events)
        }
        let returnedAfter = MonotonicClock.now() - start
        steps.record("wrapper returned \(size) bytes")
        // Let the watcher's step land before the record is taken (it is in the events).
        let settle = MonotonicClock.now() + 1
        while server.counts.responsesCompleted < 1, MonotonicClock.now() < settle { MonotonicClock.sleep(for: 0.005) }
        m[CallbackMetric.wrapperReturnedAfterS] = returnedAfter
        m[CallbackMetric.wrapperBytes] = Double(size)
        m[CallbackMetric.steps] = Double(context.progress.value)
        return VariantRecord(outcome: .completed, metrics: m,
                             evidence: "the wrapper returned \(size) bytes after \(Format.seconds(returnedAfter))",
                             events: steps.events)
    }
}

/// The body's size, set on the delegate queue and read by the waiting thread.
private final class SizeBox: Sendable {
    private let value = Mutex(-1)
    func set(_ n: Int) { value.withLock { $0 = n } }
    func get() -> Int { value.withLock { $0 } }
}
