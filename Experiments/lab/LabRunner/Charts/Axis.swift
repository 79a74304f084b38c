import Foundation

/// Tick positions and labels for a chart axis.
struct Axis {
    var lower: Double
    var upper: Double
    var ticks: [Double]
    var logarithmic: Bool

    /// A linear axis from `lower` to a "nice" upper bound covering `maximum`, with about
    /// `count` ticks at 1, 2 or 5 times a power of ten.
    static func linear(from lower: Double = 0, to maximum: Double, count: Int = 5) -> Axis {
        let span = max(maximum - lower, 1e-9)
        let raw = span / Double(max(count, 1))
        let magnitude = pow(10, floor(log10(raw)))
        let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? raw
        let upper = lower + (span / step).rounded(.up) * step
        var ticks: [Double] = []
        var t = lower
        while t <= upper + step / 1000 { ticks.append(t); t += step }
        return Axis(lower: lower, upper: upper, ticks: ticks, logarithmic: false)
    }

    /// A base-10 logarithmic axis covering `minimum...maximum` (both > 0), ticks at powers of ten.
    static func log(from minimum: Double, to maximum: Double) -> Axis {
        let lo = floor(log10(max(minimum, 1e-6)))
        let hi = max(ceil(log10(max(maximum, 1e-6))), lo + 1)
        let ticks = stride(from: lo, through: hi, by: 1).map { pow(10, $0) }
        return Axis(lower: pow(10, lo), upper: pow(10, hi), ticks: ticks, logarithmic: true)
    }

    /// Where `value` falls, from 0 (lower) to 1 (upper), clamped.
    func fraction(_ value: Double) -> Double {
        let f: Double
        if logarithmic {
            let v = max(value, lower)
            f = (log10(v) - log10(lower)) / (log10(upper) - log10(lower))
        } else {
            f = (value - lower) / (upper - lower)
        }
        return min(max(f, 0), 1)
    }

    func label(_ value: Double) -> String {
        if value == 0 { return "0" }
        // Format.number prints whole numbers without a fraction and never converts past Int.
        return Format.number(value)
    }
}

import LabHarness
