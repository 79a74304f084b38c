import Foundation
import Synchronization

/// A synchronous wrapper around an asynchronous fetch, the classic way: start the work, wait on
/// a semaphore for its completion. `MainQueueFetcher` delivers the completion on the main
/// queue, as UI code does, so called on the main thread it waits for a block that can only run
/// once it stops waiting: a deadlock. `QueueFetcher` delivers on a queue of its own and
/// returns on any thread.
public final class MainQueueFetcher: Sendable {
    public init() {}

    public func fetchSynchronously() -> String {
        let done = DispatchSemaphore(value: 0)
        let result = Slot()
        DispatchQueue.global().async {
            DispatchQueue.main.async {  // the completion is delivered on the main queue
                result.set("payload")
                done.signal()
            }
        }
        done.wait()  // on the main thread, the block above never runs
        return result.get()
    }
}

public final class QueueFetcher: Sendable {
    private let delivery = DispatchQueue(label: "fetcher.delivery")

    public init() {}

    public func fetchSynchronously() -> String {
        let done = DispatchSemaphore(value: 0)
        let result = Slot()
        DispatchQueue.global().async { [delivery] in
            delivery.async {
                result.set("payload")
                done.signal()
            }
        }
        done.wait()
        return result.get()
    }
}

/// A string handed between threads.
final class Slot: Sendable {
    private let value = Mutex("")
    func set(_ text: String) { value.withLock { $0 = text } }
    func get() -> String { value.withLock { $0 } }
}
