/// A time axis chosen from the data: a round end at or above the longest time (1, 1.2, 1.5, 2,
/// 2.5, 3, 4, 5, 6 or 8 times a power of ten) and the unit that end reads best in (µs below a
/// millisecond, ms below a second, else s). A chart drawn on it labels its end, so a 6 µs bar
/// on a 6 µs axis can never pass for a 2 s bar on a 2 s axis.
public struct TimeScale: Sendable, Equatable {
    /// `µs`, `ms` or `s`.
    public var unit: String
    /// Seconds per unit: 1e-6, 1e-3 or 1.
    var secondsPerUnit: Double
    /// The axis's end, in seconds.
    public var end: Seconds

    /// The scale for times up to `longest` seconds (at least 1 µs).
    public init(longest: Seconds) {
        let longest = longest.isFinite ? max(longest, 1e-6) : 1
        var magnitude = 1e-6
        while magnitude * 10 <= longest { magnitude *= 10 }
        end = TimeScale.steps.map { $0 * magnitude }.first { $0 >= longest * (1 - 1e-9) } ?? longest
        if end < 1e-3 * (1 - 1e-9) {
            (unit, secondsPerUnit) = ("µs", 1e-6)
        } else if end < 1 * (1 - 1e-9) {
            (unit, secondsPerUnit) = ("ms", 1e-3)
        } else {
            (unit, secondsPerUnit) = ("s", 1)
        }
    }

    /// Round ends within a decade: close enough together that the longest bar always fills at
    /// least three quarters of the axis.
    static let steps: [Double] = [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]

    /// Where `t` falls on the axis, from 0 to 1 (clamped).
    public func fraction(_ t: Seconds) -> Double { min(max(t / end, 0), 1) }

    /// `t` in the scale's unit with its unit: `10 µs`, `2.5 ms`, `2 s`.
    public func label(_ t: Seconds) -> String { Format.number(Metrics.round(t / secondsPerUnit)) + " " + unit }
}
