import Foundation
import LabHarness
import Synchronization

/// A design that keeps timeouts as callbacks: arm one for a deadline, cancel it if the request
/// completes first. `race` comes for free: a continuation resumed by whichever side gets there
/// first.
public protocol CallbackTimeoutDesign: TimeoutDesign {
    associatedtype Token: Sendable

    /// Arms a timeout for the monotonic instant `deadline`; `onFire` runs once, on the
    /// design's own thread or queue, no earlier than `deadline`, with the instant it ran.
    /// Callable from any thread.
    func arm(at deadline: TimeInterval, onFire: @escaping @Sendable (_ firedAt: TimeInterval) -> Void) -> Token

    /// Cancels a timeout that has not fired; `true` if it is now certain never to fire, `false`
    /// if it fired already (or is firing) or the design cannot take timers back.
    @discardableResult
    func cancel(_ token: Token) -> Bool
}

extension CallbackTimeoutDesign {
    public func race(deadline: TimeInterval, request: (@Sendable () async -> Void)?) async -> RaceOutcome {
        // Whichever side claims first resumes the continuation, so it resumes once even when
        // the timeout fires while the request is completing. That claim is the guarantee a
        // checked continuation would verify, so an unsafe one: the checked one's extra object
        // per request is freed by the design's thread as it wakes the request, which at ten
        // thousand requests due together measurably lengthened its passes.
        let state = RaceState()
        let outcome = await withUnsafeContinuation { (continuation: UnsafeContinuation<RaceOutcome, Never>) in
            let token = arm(at: deadline) { firedAt in
                if state.claim() { continuation.resume(returning: .timedOut(firedAt: firedAt)) }
            }
            guard let request else { return }
            state.keep(
                Task {
                    await request()
                    if state.claim() {
                        cancel(token)
                        continuation.resume(returning: .completed)
                    }
                })
        }
        // The timeout won: the request is abandoned.
        if case .timedOut = outcome { state.cancelRequest() }
        return outcome
    }
}

/// What the two sides of one request's race share: who won, and the request's task.
final class RaceState: Sendable {
    private let decided = Atomic<Bool>(false), requestTask = Mutex<Task<Void, Never>?>(nil)

    /// `true` for the first caller only: that side resumes the waiter.
    func claim() -> Bool { !decided.exchange(true, ordering: .acquiringAndReleasing) }
    func keep(_ task: Task<Void, Never>) { requestTask.withLock { $0 = task } }
    /// Cancels the request's task, if it has one (the timeout won).
    func cancelRequest() { requestTask.withLock { $0?.cancel() } }
}
