import Foundation
// URLSession is in FoundationNetworking on Linux and in Foundation itself on Darwin: every Linux program
// imports it this way, and no harness file can re-export it without linking it into every lab binary.
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LabHarness
import Synchronization
import XCTest

/// What the toolchain's URLSession does against the loopback server: the facts the callback
/// experiment's URLSession findings rest on, each measured, not assumed.
final class URLSessionOnLoopbackTests: XCTestCase {
    private func backgroundQueue() -> OperationQueue {
        let queue = OperationQueue()
        queue.name = "lab.delegate"
        queue.maxConcurrentOperationCount = 1
        return queue
    }

    /// A data task's completion handler runs on the session's delegate queue (the session's own
    /// serial queue when none is given, or the queue given), on a thread that is not the main
    /// thread the test called from.
    func testADataTaskCompletesAndItsHandlerRunsOnTheSessionsDelegateQueue() throws {
        let server = try LoopbackServer(response: LoopbackResponse(bodySize: 1000))
        defer { server.stop() }
        for queue in [nil, backgroundQueue()] {
            let session = URLSession(configuration: .ephemeral, delegate: nil, delegateQueue: queue)
            defer { session.finishTasksAndInvalidate() }
            let seen = Mutex<(onDelegateQueue: Bool, onMainThread: Bool, bytes: Int)?>(nil)
            let done = DispatchSemaphore(value: 0)
            session.dataTask(with: server.url()) { data, _, _ in
                seen.withLock {
                    $0 = (OperationQueue.current === session.delegateQueue, Thread.isMainThread, data?.count ?? -1)
                }
                done.signal()
            }.resume()
            XCTAssertEqual(done.wait(timeout: .now() + 20), .success, "the task never completed")
            let handler = try XCTUnwrap(seen.withLock { $0 })
            XCTAssertTrue(handler.onDelegateQueue, "queue given: \(queue?.name ?? "none")")
            XCTAssertFalse(handler.onMainThread)
            XCTAssertEqual(handler.bytes, 1000)
        }
    }

    /// The synchronous wrapper (resume, then wait on a semaphore) on the main thread of a
    /// session whose delegate queue is the main queue: the response arrives in full, yet the
    /// handler cannot run while the main thread waits for it. It runs as soon as the main run
    /// loop turns. (Bounded waits: nothing hangs.)
    func testASemaphoreWrapperOnTheMainThreadWithAMainDelegateQueueWaitsForever() throws {
        try XCTSkipUnless(Thread.isMainThread, "this test must call from the main thread")
        let server = try LoopbackServer(response: LoopbackResponse(bodySize: 1000))
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral, delegate: nil, delegateQueue: .main)
        defer { session.invalidateAndCancel() }
        let ranOnMain = Mutex<Bool?>(nil)
        let done = DispatchSemaphore(value: 0)
        session.dataTask(with: server.url()) { _, _, _ in
            ranOnMain.withLock { $0 = Thread.isMainThread }
            done.signal()
        }.resume()
        // The evidence for the deadlock: the server has sent everything...
        XCTAssertTrue(eventually(within: 20) { server.counts.responsesCompleted == 1 })
        // ...and the handler still does not run while the main thread waits.
        XCTAssertEqual(done.wait(timeout: .now() + 0.5), .timedOut, "the handler ran while the main thread was blocked")
        XCTAssertNil(ranOnMain.withLock { $0 })
        // Let the main run loop turn: the queued handler runs, on the main thread.
        let deadline = MonotonicClock.now() + 20
        while ranOnMain.withLock({ $0 }) == nil && MonotonicClock.now() < deadline {
            RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.01))
        }
        XCTAssertEqual(ranOnMain.withLock { $0 }, true)
    }

    /// The same wrapper with a background delegate queue returns: the handler does not need
    /// the thread that waits.
    func testTheSameWrapperWithABackgroundDelegateQueueReturns() throws {
        let server = try LoopbackServer(response: LoopbackResponse(bodySize: 1000))
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral, delegate: nil, delegateQueue: backgroundQueue())
        defer { session.finishTasksAndInvalidate() }
        let done = DispatchSemaphore(value: 0)
        session.dataTask(with: server.url()) { _, _, _ in done.signal() }.resume()
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success)
    }

    /// swift-corelibs-foundation ignores the response disposition: `HTTPURLProtocol`'s
    /// `didReceiveResponse` notes that libcurl's transfer cannot be paused, and the handler
    /// handed to the delegate discards its argument. So a delegate that never calls the handler,
    /// or calls it with `.cancel`, still gets the whole body and a task completed without error.
    /// (Darwin's documentation says the task waits for the handler; this is Linux's divergence.)
    func testLinuxFoundationIgnoresTheResponseDisposition() throws {
        try XCTSkipUnless(PlatformInfo.current.isLinux, "measured on swift-corelibs-foundation (Linux)")
        let response = LoopbackResponse(bodySize: 50_000, headerDelay: 0.05, chunkCount: 3, chunkInterval: 0.05)
        for answer in [DispositionRecorder.Answer.never, .cancel, .allow] {
            let server = try LoopbackServer(response: response)
            defer { server.stop() }
            let recorder = DispositionRecorder(answer: answer)
            let session = URLSession(configuration: .ephemeral, delegate: recorder, delegateQueue: nil)
            defer { session.invalidateAndCancel() }
            recorder.start(session.dataTask(with: server.url()))
            XCTAssertEqual(
                recorder.completed.wait(timeout: .now() + 20), .success, "\(answer): the task never completed")
            let record = recorder.record
            XCTAssertNotNil(record.responseAt, "\(answer): the delegate was not asked")
            XCTAssertEqual(record.bodyBytes, response.body.count, "\(answer): bytes received")
            XCTAssertNil(record.error, "\(answer): completed with an error")
            XCTAssertGreaterThanOrEqual(
                try XCTUnwrap(record.completedAt), response.scheduledDuration - 0.01,
                "\(answer): completed before the body was sent")
            XCTAssertTrue(eventually { server.counts.responsesCompleted == 1 }, "\(answer): \(server.counts)")
        }
    }

    /// The async `data(from:)` resumes its caller without going through the delegate queue
    /// (corelibs-foundation completes it inline), so a main thread blocked on a semaphore for
    /// it does not deadlock even with the main queue as delegate queue.
    func testTheAsyncAPIDoesNotWaitForTheDelegateQueue() throws {
        try XCTSkipUnless(PlatformInfo.current.isLinux, "measured on swift-corelibs-foundation (Linux)")
        try XCTSkipUnless(Thread.isMainThread, "this test must call from the main thread")
        let server = try LoopbackServer(response: LoopbackResponse(bodySize: 1000))
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral, delegate: nil, delegateQueue: .main)
        defer { session.invalidateAndCancel() }
        let bytes = Mutex<Int?>(nil)
        let done = DispatchSemaphore(value: 0)
        let url = server.url()
        Task.detached {
            let count = (try? await session.data(from: url))?.0.count ?? -1
            bytes.withLock { $0 = count }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success, "the async call waited for the blocked main queue")
        XCTAssertEqual(bytes.withLock { $0 }, 1000)
    }
}
