import Synchronization

/// A value set once from another thread.
final class ResultBox<T: Sendable>: Sendable {
    private let storage = Mutex<T?>(nil)
    func set(_ value: T) { storage.withLock { $0 = value } }
    func get() -> T? { storage.withLock { $0 } }
}
