import Synchronization

/// What the two sides of one request's race share: who won, and the request's task so the
/// winner can cancel it.
final class RaceState: Sendable {
    private let decided = Atomic<Bool>(false)
    private let requestTask = Mutex<Task<Void, Never>?>(nil)

    /// `true` for the first caller only: that side resumes the waiter.
    func claim() -> Bool { !decided.exchange(true, ordering: .acquiringAndReleasing) }

    func keep(_ task: Task<Void, Never>) { requestTask.withLock { $0 = task } }

    /// Cancels the request's task, if it has one (the timeout won).
    func cancelRequest() { requestTask.withLock { $0?.cancel() } }
}
