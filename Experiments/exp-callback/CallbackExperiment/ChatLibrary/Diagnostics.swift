/// Something the library noticed about how the app kept its side of a contract. A library
/// cannot throw into the app's code from a handler the app called on its own thread, so it
/// records the problem and tells the app's developer (here: the scenario reads it).
public struct Diagnostic: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// Not called within the library's patience: the library went on without it.
        case neverCalled = "never-called"
        /// Called again after it was settled: the call was ignored.
        case calledAgain = "called-again"
    }
    public var kind: Kind, message: String
}
