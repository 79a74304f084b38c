/// Number formatting for reports, without locale surprises (always a dot, never a comma).
public enum Format {
    /// `0.0042` → `4.2 ms`, `1.5` → `1.50 s`, `23.4` → `23.4 s`.
    public static func seconds(_ value: Seconds) -> String {
        guard value.isFinite else { return "—" }
        let a = abs(value)
        if a < 0.001 { return decimal(value * 1_000_000, places: 0) + " µs" }
        if a < 1 { return decimal(value * 1000, places: a < 0.01 ? 1 : 0) + " ms" }
        if a < 10 { return decimal(value, places: 2) + " s" }
        return decimal(value, places: 1) + " s"
    }

    /// Milliseconds with sensible precision: `0.42 ms`, `12 ms`, `1234 ms`.
    public static func milliseconds(_ value: Double) -> String {
        guard value.isFinite else { return "—" }
        return decimal(value, places: abs(value) < 10 ? 2 : 0) + " ms"
    }

    /// A fixed number of decimal places.
    public static func decimal(_ value: Double, places: Int) -> String {
        guard value.isFinite else { return "—" }
        var scale = 1.0
        for _ in 0..<max(places, 0) { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        // Past 2^53 a Double holds no fraction worth printing, and past Int.max the conversion
        // below would trap: such values keep Swift's own exact rendering (`1e+300`).
        guard scaled < Format.exactLimit else { return String(value) }
        let whole = Int(scaled / scale)
        let sign = value < 0 && scaled != 0 ? "-" : ""
        guard places > 0 else { return sign + String(whole) }
        let fraction = Int(scaled - Double(whole) * scale)
        let digits = String(fraction)
        return sign + String(whole) + "." + String(repeating: "0", count: places - digits.count) + digits
    }

    /// A count: `300`, or `12 345` is not used; plain digits keep columns aligned.
    public static func count(_ value: Double) -> String {
        guard value.isFinite else { return "—" }
        guard abs(value) < Format.exactLimit else { return String(value) }
        return value == value.rounded() ? String(Int(value)) : decimal(value, places: 1)
    }

    /// `"3 of 300"`-style ratio text.
    public static func ratio(_ part: Double?, of whole: Double?) -> String {
        guard let part, let whole else { return "—" }
        return "\(count(part))/\(count(whole))"
    }

    /// The shortest plain rendering, up to six significant digits: `0.01`, `2.5`, `300`.
    public static func number(_ value: Double) -> String {
        guard value.isFinite else { return "—" }
        if value == value.rounded(), abs(value) < Format.exactLimit { return String(Int(value)) }
        for places in 1...9 {
            let text = decimal(value, places: places)
            if let back = Double(text), abs(back - value) <= abs(value) * 1e-6 { return text }
        }
        return String(value)
    }

    /// Magnitudes from here up are printed in Swift's own notation, never converted to `Int`
    /// (2^53: the first whole number a Double cannot tell from its neighbour).
    static let exactLimit: Double = 9_007_199_254_740_992

    /// A multiplier: `12.3×`.
    public static func times(_ value: Double) -> String {
        guard value.isFinite else { return "—" }
        return decimal(value, places: value < 10 ? 1 : 0) + "×"
    }
}

extension Format {
    /// A rough duration for estimates: `40 s`, `3 min`, `1 h 20 min`.
    public static func duration(_ seconds: Seconds) -> String {
        let s = max(0, seconds.rounded())
        if s < 90 { return "\(Int(s)) s" }
        let minutes = Int((s / 60).rounded())
        if minutes < 90 { return "\(minutes) min" }
        return "\(minutes / 60) h \(minutes % 60) min"
    }
}

extension DefaultStringInterpolation {
    /// `"\(seconds: 0.0042) later"` → `4.2 ms later`: `Format.seconds` inside a sentence.
    public mutating func appendInterpolation(seconds value: Double) { appendLiteral(Format.seconds(value)) }
}
