import LabHarness
import Synchronization

/// The library's once-guard: of all the parties that try to settle one pending operation (the
/// app calling its completion handler, again and again, or the library's own watchdog giving
/// up), exactly one wins, and every later attempt is recorded instead of acted on.
///
/// Built on `Mutex`, so it is correct whichever threads the calls come from and however they
/// race; the record of refused attempts is what the library reports to the app's developer.
public final class ExactlyOnce: Sendable {
    /// One attempt to settle.
    public struct Attempt: Sendable, Equatable {
        /// Who tried: `app` (the handler was called) or `watchdog`.
        public var by: String
        /// 1 for the first attempt, 2 for the second...
        public var number: Int
        public var place: ExecutionPlace
    }

    private struct State {
        var winner: Attempt?
        var refused: [Attempt] = []
        var attempts = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// Claims the right to settle. True for the first caller only.
    public func claim(by who: String) -> Bool {
        let place = ExecutionPlace.current
        return state.withLock { s in
            s.attempts += 1
            let attempt = Attempt(by: who, number: s.attempts, place: place)
            if s.winner == nil {
                s.winner = attempt
                return true
            }
            s.refused.append(attempt)
            return false
        }
    }

    public var winner: Attempt? { state.withLock { $0.winner } }
    public var refused: [Attempt] { state.withLock { $0.refused } }
    public var attempts: Int { state.withLock { $0.attempts } }
    public var isSettled: Bool { winner != nil }
}
