import Synchronization

/// The library's once-guard: of all the parties that try to settle one pending operation (the
/// app's handler calls, the library's watchdog), exactly one wins, and every later attempt is
/// recorded instead of acted on, whichever threads the calls come from and however they race.
public final class ExactlyOnce: Sendable {
    /// One attempt to settle: who tried (`app` or `watchdog`), and its number (1, 2...).
    public struct Attempt: Sendable, Equatable { public var by: String, number: Int }
    private let state = Mutex<(winner: Attempt?, refused: [Attempt], attempts: Int)>((nil, [], 0))
    public init() {}

    /// Claims the right to settle. True for the first caller only.
    public func claim(by who: String) -> Bool {
        state.withLock { s in
            s.attempts += 1
            let attempt = Attempt(by: who, number: s.attempts)
            guard s.winner == nil else { s.refused.append(attempt); return false }
            s.winner = attempt; return true
        }
    }

    public var winner: Attempt? { state.withLock { $0.winner } }
    public var refused: [Attempt] { state.withLock { $0.refused } }
    public var attempts: Int { state.withLock { $0.attempts } }
}
