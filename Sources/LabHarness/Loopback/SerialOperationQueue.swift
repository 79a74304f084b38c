import Foundation

extension OperationQueue {
    /// A serial operation queue named `name`: a delegate queue of the app's own, as a
    /// URLSession trial hands to `URLSession(configuration:delegate:delegateQueue:)` to see
    /// where its handlers run (the name is what `OperationQueue.current` shows).
    public static func serial(_ name: String) -> OperationQueue {
        let queue = OperationQueue()
        (queue.name, queue.maxConcurrentOperationCount) = (name, 1)
        return queue
    }
}
