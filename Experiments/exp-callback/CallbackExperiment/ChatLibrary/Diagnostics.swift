/// Something the library noticed about how the app kept its side of a contract: it cannot throw
/// into the app's code from a handler called on the app's thread, so it records the problem.
public struct Diagnostic: Sendable, Equatable {
    /// Not called within the library's patience (it went on without it); called again after it was settled (ignored).
    public enum Kind: String, Sendable { case neverCalled = "never-called", calledAgain = "called-again" }
    public var kind: Kind, message: String
}
