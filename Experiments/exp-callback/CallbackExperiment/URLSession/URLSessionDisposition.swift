import Foundation
import LabHarness
import Synchronization

/// `urlsession-disposition`: three real data tasks against loopback servers whose response comes
/// in timed pieces; each task's delegate answers the disposition `.allow`, never, or `.cancel`.
enum URLSessionDisposition {
    /// What a task's delegate does with the disposition handler.
    enum Answer: String, CaseIterable, Sendable { case allow, never, cancel }

    /// 100,000 bytes in 5 pieces 0.1 s apart after 0.1 s: "waited for the answer" and "did not" cannot be confused.
    static let response = LoopbackResponse(bodySize: 100_000, headerDelay: 0.1, chunkCount: 5, chunkInterval: 0.1)
    /// How long the scenario waits: a task waiting for a disposition is still waiting after this.
    static var window: Seconds { 3 * response.scheduledDuration + 1 }

    static func run(_ context: VariantContext) throws -> VariantRecord {
        var servers: [LoopbackServer] = [], sessions: [URLSession] = [], probes: [Probe] = []
        let start = MonotonicClock.now()
        for answer in Answer.allCases {
            let server = try LoopbackServer(response: response)
            let probe = Probe(answer: answer, narrate: context.narrator("\(answer.rawValue) · "))
            let session = URLSession(configuration: .ephemeral, delegate: probe, delegateQueue: nil)
            probe.narrate("app resumes a data task")
            session.dataTask(with: server.url()).resume()
            servers.append(server); sessions.append(session); probes.append(probe)
        }
        _ = MainQueueFriendlyWait.until(within: window) { probes.allSatisfy { $0.record.endedAt != nil } }
        for session in sessions { session.invalidateAndCancel() }
        for server in servers { server.stop(within: 2) }

        var m = context.figures()
        m.set([
            CallbackMetric.bodyBytes: Double(response.body.count),
            CallbackMetric.scheduledS: response.scheduledDuration, CallbackMetric.windowS: window,
        ])
        for probe in probes {
            let r = probe.record
            m.set(
                probe.answer.rawValue,
                [
                    .asked: r.askedAt == nil ? 0 : 1, .bytes: Double(r.bytes), .ended: r.endedAt == nil ? 0 : 1,
                    .errorCode: Double(r.errorCode ?? 0), .endedAfterS: r.endedAt.map { $0 - start },
                    .askedAfterS: r.askedAt.map { $0 - start },
                ])
        }
        let full = response.body.count
        let ignored = probes.map(\.record).allSatisfy {
            $0.askedAt != nil && $0.bytes == full && $0.endedAt != nil && $0.errorCode == nil
        }
        let byAnswer = Dictionary(uniqueKeysWithValues: probes.map { ($0.answer, $0.record) })
        let gated =
            byAnswer[.allow].map { $0.bytes == full && $0.endedAt != nil && $0.errorCode == nil } == true
            && byAnswer[.never].map { $0.endedAt == nil && $0.bytes == 0 } == true
            && byAnswer[.cancel].map { $0.endedAt != nil && $0.errorCode != nil && $0.bytes == 0 } == true
        let outcome: Outcome = ignored ? .dispositionIgnored : gated ? .completed : .failed
        return VariantRecord(outcome: outcome, metrics: m, evidence: CallbackVerdicts.dispositionLines(m))
    }

    /// A task's delegate: answers one way (`.never` keeps the handler, so dropping it does not
    /// end the wait) and records what the task did next, each event also a step.
    // @unchecked: URLSession wants an NSObject delegate; every stored property is immutable or
    // inside a Mutex.
    final class Probe: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        struct Record: Sendable { var askedAt: Seconds?, bytes = 0, endedAt: Seconds?, errorCode: Int? }
        let answer: Answer, narrate: Narrate
        private let store = Mutex(Record())
        private let kept = Mutex<[@Sendable (URLSession.ResponseDisposition) -> Void]>([])

        init(answer: Answer, narrate: @escaping Narrate) { self.answer = answer; self.narrate = narrate }

        var record: Record { store.withLock { $0 } }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) {
            store.withLock { $0.askedAt = MonotonicClock.now() }
            switch answer {
            case .allow: narrate("delegate is asked for a disposition; answers .allow"); completionHandler(.allow)
            case .cancel: narrate("delegate is asked for a disposition; answers .cancel"); completionHandler(.cancel)
            case .never:
                narrate("delegate is asked for a disposition; keeps the handler, never calls it")
                kept.withLock { $0.append(completionHandler) }
            }
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            if store.withLock({ r in
                defer { r.bytes += data.count }; return r.bytes == 0
            }) {
                narrate("delegate gets the first body bytes")
            }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
            let code = (error as NSError?)?.code, bytes = record.bytes
            narrate(
                code.map { "task ends with error \($0) after \(bytes) bytes" }
                    ?? "task completes without error after \(bytes) bytes")
            store.withLock {
                $0.endedAt = MonotonicClock.now(); $0.errorCode = code
            }
        }
    }
}
