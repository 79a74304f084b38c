import Foundation
// URLSession is in FoundationNetworking on Linux and in Foundation itself on Darwin: every Linux program
// imports it this way, and no harness file can re-export it without linking it into every lab binary.
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LabHarness
import Synchronization

/// A data delegate that answers `urlSession(_:dataTask:didReceive:completionHandler:)` with a
/// chosen disposition, or never answers, and records what the task then did: when the
/// response came, how many body bytes arrived, when and how the task completed.
// @unchecked: NSObject is not Sendable; every stored property is immutable or in a Mutex.
final class DispositionRecorder: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// What the delegate does with the disposition handler.
    enum Answer: String {
        case allow
        case cancel
        /// The handler is kept and never called.
        case never
    }

    /// What the task did, in seconds since `start`.
    struct Record: Sendable {
        var responseAt: Seconds?
        var bodyBytes = 0
        var lastDataAt: Seconds?
        var completedAt: Seconds?
        var error: NSError?
    }

    let answer: Answer
    let completed = DispatchSemaphore(value: 0)
    private let startTime = Mutex<Seconds>(0)
    private let store = Mutex(Record())
    /// Handlers held and never called (`.never`).
    private let unanswered = Mutex<[@Sendable (URLSession.ResponseDisposition) -> Void]>([])

    init(answer: Answer) { self.answer = answer }

    var record: Record { store.withLock { $0 } }

    /// Resumes `task`, timing everything from now.
    func start(_ task: URLSessionTask) {
        startTime.withLock { $0 = MonotonicClock.now() }
        task.resume()
    }

    private var elapsed: Seconds { MonotonicClock.now() - startTime.withLock { $0 } }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let now = elapsed
        store.withLock { $0.responseAt = now }
        switch answer {
        case .allow: completionHandler(.allow)
        case .cancel: completionHandler(.cancel)
        case .never: unanswered.withLock { $0.append(completionHandler) }
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let now = elapsed
        store.withLock {
            $0.bodyBytes += data.count; $0.lastDataAt = now
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let now = elapsed
        store.withLock {
            $0.completedAt = now; $0.error = error.map { $0 as NSError }
        }
        completed.signal()
    }
}
