import Synchronization

/// Whether a request was answered; true for the first answer only (`GuardedLoader`).
final class Answered: Sendable {
    private let done = Mutex(false)
    func first() -> Bool {
        done.withLock { done in
            defer { done = true }; return !done
        }
    }
}
