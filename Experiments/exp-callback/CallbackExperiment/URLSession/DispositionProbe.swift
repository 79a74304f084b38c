import Foundation
import LabHarness
import Synchronization

/// A URLSession data delegate that answers the response's disposition handler one chosen way
/// (`.allow`, `.cancel`, or by keeping the handler and never calling it) and records what the
/// task did next: when the delegate was asked, how many body bytes came, when and how the task
/// ended. Each event is also a step of the scenario's log, with the queue it ran on.
// @unchecked: URLSession wants an NSObject delegate, which is not Sendable; every stored
// property is immutable or inside a Mutex.
final class DispositionProbe: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// What the delegate does with the disposition handler.
    enum Answer: String, CaseIterable, Sendable {
        case allow
        case never
        case cancel
    }

    /// What the task did, as monotonic instants.
    struct Record: Sendable {
        var askedAt: Seconds?
        var bytes = 0
        var endedAt: Seconds?
        var errorCode: Int?
    }

    let answer: Answer
    let narrate: Narrate
    private let store = Mutex(Record())
    /// Handlers kept and never called (`.never`): held so that dropping them is not what ends
    /// the wait.
    private let kept = Mutex<[@Sendable (URLSession.ResponseDisposition) -> Void]>([])

    init(answer: Answer, narrate: @escaping Narrate) {
        self.answer = answer
        self.narrate = narrate
    }

    var record: Record { store.withLock { $0 } }
    var ended: Bool { record.endedAt != nil }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        store.withLock { $0.askedAt = MonotonicClock.now() }
        switch answer {
        case .allow:
            narrate("delegate is asked for a disposition; answers .allow")
            completionHandler(.allow)
        case .cancel:
            narrate("delegate is asked for a disposition; answers .cancel")
            completionHandler(.cancel)
        case .never:
            narrate("delegate is asked for a disposition; keeps the handler, never calls it")
            kept.withLock { $0.append(completionHandler) }
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let first = store.withLock { r -> Bool in
            defer { r.bytes += data.count }
            return r.bytes == 0
        }
        if first { narrate("delegate gets the first body bytes") }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let code = (error as NSError?)?.code
        let bytes = record.bytes
        narrate(code.map { "task ends with error \($0) after \(bytes) bytes" } ?? "task completes without error after \(bytes) bytes")
        store.withLock { $0.endedAt = MonotonicClock.now(); $0.errorCode = code }
    }
}
