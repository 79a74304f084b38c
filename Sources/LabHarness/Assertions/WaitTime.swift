import Dispatch

/// A length of time an assertion waits: seconds as a `Double` or `Int` literal (`within: 0.5`),
/// or a `Duration` (`within: .milliseconds(300)`). One protocol instead of two overloads of
/// every assertion, so `within:`, `after:` and `grace:` each take either spelling.
public protocol WaitTime: Sendable {
    /// The length in seconds, from 0 to `WaitTimeLimit.longest` (see there).
    var labSeconds: Seconds { get }
}

/// What a wait does with a length no clock can wait: a negative one or NaN waits 0 s (so the
/// assertion fails at once, saying its budget), one longer than `longest` (`.infinity`, say)
/// waits `longest`, which a hang watch ends long before. Never a trap: converting such a length
/// to a clock's integer units would be one.
public enum WaitTimeLimit {
    /// About 11.6 days.
    public static let longest: Seconds = 1_000_000

    /// `seconds` within 0...`longest` (NaN: 0).
    static func clamped(_ seconds: Seconds) -> Seconds {
        seconds > 0 ? min(seconds, longest) : 0
    }

    /// The dispatch time `seconds` from now, clamped as above.
    static func fromNow(_ seconds: Seconds) -> DispatchTime {
        .now() + .nanoseconds(Int(clamped(seconds) * 1e9))
    }
}

extension Double: WaitTime {
    public var labSeconds: Seconds { WaitTimeLimit.clamped(self) }
}

extension Int: WaitTime {
    public var labSeconds: Seconds { WaitTimeLimit.clamped(Double(self)) }
}

extension Duration: WaitTime {
    public var labSeconds: Seconds {
        WaitTimeLimit.clamped(Double(components.seconds) + Double(components.attoseconds) * 1e-18)
    }
}

// Implicit member syntax (`.milliseconds(300)`) on a `some WaitTime` parameter looks the
// member up on the protocol, so the common `Duration` makers are repeated here.
extension WaitTime where Self == Duration {
    // The standard library's generic makers on an `Int64`: they count in 128 bits, so no
    // whole number overflows (this extension's own `Int` makers would be called again).
    public static func seconds(_ value: Int) -> Duration { Duration.seconds(Int64(value)) }
    public static func seconds(_ value: Double) -> Duration { clamped(seconds: value) }
    public static func milliseconds(_ value: Int) -> Duration { Duration.milliseconds(Int64(value)) }
    public static func milliseconds(_ value: Double) -> Duration { clamped(seconds: value / 1000) }
    static func microseconds(_ value: Int) -> Duration { Duration.microseconds(Int64(value)) }
    /// Whole nanoseconds, within `WaitTimeLimit`'s range (an `Int64` of nanoseconds holds 292 years).
    private static func clamped(seconds: Double) -> Duration {
        Duration.nanoseconds(Int64((WaitTimeLimit.clamped(seconds) * 1e9).rounded()))
    }
}
