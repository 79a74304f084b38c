/// A length of time an assertion waits: seconds as a `Double` or `Int` literal (`within: 0.5`),
/// or a `Duration` (`within: .milliseconds(300)`). One protocol instead of two overloads of
/// every assertion, so `within:`, `after:` and `grace:` each take either spelling.
public protocol WaitTime: Sendable {
    /// The length in seconds.
    var labSeconds: Seconds { get }
}

extension Double: WaitTime {
    public var labSeconds: Seconds { self }
}

extension Int: WaitTime {
    public var labSeconds: Seconds { Double(self) }
}

extension Duration: WaitTime {
    public var labSeconds: Seconds {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}

// Implicit member syntax (`.milliseconds(300)`) on a `some WaitTime` parameter looks the
// member up on the protocol, so the common `Duration` makers are repeated here.
extension WaitTime where Self == Duration {
    public static func seconds(_ value: Int) -> Duration { Duration.nanoseconds(Int64(value) * 1_000_000_000) }
    public static func seconds(_ value: Double) -> Duration { Duration.nanoseconds(Int64((value * 1e9).rounded())) }
    public static func milliseconds(_ value: Int) -> Duration { Duration.nanoseconds(Int64(value) * 1_000_000) }
    public static func milliseconds(_ value: Double) -> Duration {
        Duration.nanoseconds(Int64((value * 1e6).rounded()))
    }
    static func microseconds(_ value: Int) -> Duration { Duration.nanoseconds(Int64(value) * 1_000) }
}
