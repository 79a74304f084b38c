import Foundation
import LabHarness

/// Who waits for the requests, and how.
public enum CallerKind: String, Sendable, CaseIterable {
    /// A block on the global queue per request, blocked on a semaphore until its timeout (the
    /// article's `ViewController`). Each blocked caller holds a pool thread.
    case global
    /// A `Thread` per request, blocked on a semaphore.
    case thread
    /// A task per request that awaits a continuation: no thread is blocked while it waits.
    case async
    /// An operation per request on an `OperationQueue` with `maxConcurrentOperationCount` 300,
    /// blocked on a semaphore (the article's commented-out `NSOperationQueue` in `ViewController`).
    /// Operations run on the same global pool, so each blocked one holds a pool thread.
    case operationQueue = "operation-queue"

    /// Whether each caller blocks a thread while it waits (a pool thread, but for `.thread`).
    var blocks: Bool { self != .async }

    var phrase: String {
        switch self {
        case .global: "global-queue callers"
        case .thread: "thread callers"
        case .async: "async callers"
        case .operationQueue: "operation-queue callers"
        }
    }
}

/// The caller's side of a request: start it, wait for its timeout, note when it woke.
struct RequestClient: Sendable {
    let runtime: PlacementRuntime
    let progress: ProgressCounter

    /// The article's `[[Foo new] test]`: blocks the calling thread until the request's timer fires.
    /// Never inlined: the findings look for this frame under the semaphore wait.
    @inline(never)
    func callBlocking(_ index: Int) {
        runtime.log.mark(index, \.started)
        let done = DispatchSemaphore(value: 0)
        runtime.launch(index) { done.signal() }
        done.wait()  // blocks a pool thread (global callers) for the whole timeout: that is the point
        finished(index)
    }

    /// The same request without blocking a thread: the timer resumes a continuation.
    func callAsync(_ index: Int) async {
        runtime.log.mark(index, \.started)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            runtime.launch(index) { continuation.resume() }
        }
        finished(index)
    }

    private func finished(_ index: Int) {
        runtime.log.mark(index, \.woke)
        progress.advance()
    }
}

enum Callers {
    /// The frame every semaphore wait here blocks in, as stacks name it: the Swift overlay's
    /// `DispatchSemaphore.wait` tail-calls libdispatch, whose slow path shows.
    static let semaphoreWaitFrame = "_dispatch_semaphore_wait"

    /// The operation-queue callers' queue, as the article sets it up (one trial per process).
    static let operations = {
        let queue = OperationQueue(); queue.maxConcurrentOperationCount = 300; return queue
    }()

    /// Issues requests `0..<count`, each from its own caller of `kind`, and returns at once.
    static func launch(_ kind: CallerKind, count: Int, client: RequestClient) {
        for index in 0..<count {
            client.runtime.log.mark(index, \.submitted)
            switch kind {
            case .global: DispatchQueue.global().async { client.callBlocking(index) }
            case .thread: NamedThread.start("rl.caller") { client.callBlocking(index) }
            case .async: Task.detached { await client.callAsync(index) }
            case .operationQueue: operations.addOperation { client.callBlocking(index) }
            }
        }
    }
}
