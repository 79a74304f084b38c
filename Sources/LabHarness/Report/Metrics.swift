/// A flat map of named numbers, in the order they were set.
///
/// Names use dots for grouping and a unit suffix (`wait.p99_s`, `lateness.max_ms`,
/// `threads.peak`). Values are rounded to six significant digits when stored, so JSON stays
/// readable and diffs between runs show real changes, and non-finite values are refused (JSON
/// has no NaN): setting one removes the metric.
public struct Metrics: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var names: [String] = []
    private var values: [String: Double] = [:]

    public init() {}

    public init(dictionaryLiteral elements: (String, Double)...) {
        for (name, value) in elements { self[name] = value }
    }

    public subscript(name: String) -> Double? {
        get { values[name] }
        set {
            guard let value = newValue, value.isFinite else {
                if values.removeValue(forKey: name) != nil { names.removeAll { $0 == name } }
                return
            }
            if values[name] == nil { names.append(name) }
            values[name] = Metrics.round(value)
        }
    }

    public var isEmpty: Bool { names.isEmpty }
    public var count: Int { names.count }

    /// Adds every metric of `other`, replacing same-named ones.
    public mutating func merge(_ other: Metrics) {
        for (name, value) in other { self[name] = value }
    }

    public func makeIterator() -> AnyIterator<(name: String, value: Double)> {
        var index = 0
        return AnyIterator {
            guard index < names.count else { return nil }
            defer { index += 1 }
            return (names[index], values[names[index]]!)
        }
    }

    /// Equal when they hold the same names and values, whatever the order they were set in.
    public static func == (a: Metrics, b: Metrics) -> Bool { a.values == b.values }

    /// As a plain dictionary (for encoding with sorted keys).
    var dictionary: [String: Double] { values }

    /// Six significant digits: enough for any measurement the lab makes. Public so that figures
    /// kept outside a metrics map are rounded the same way.
    public static func round(_ value: Double) -> Double {
        guard value != 0, value.isFinite else { return value }
        if value == value.rounded(), abs(value) < 1e15 { return value }
        let magnitude = (abs(value)).log10Floor
        let scale = pow10(5 - magnitude)
        // Near the ends of Double's range the scale itself overflows (to infinity or zero) and
        // the quotient would be NaN, which JSON cannot hold: such values stay as they are.
        let rounded = (value * scale).rounded() / scale
        return rounded.isFinite ? rounded : value
    }

    private static func pow10(_ n: Int) -> Double {
        var result = 1.0
        if n >= 0 { for _ in 0..<n { result *= 10 } } else { for _ in 0..<(-n) { result /= 10 } }
        return result
    }
}

extension Metrics {
    /// The p50, p99 and max of `values` (times `scale`) under the keys given, with `censored`'s
    /// count beside them; nothing for no values.
    public mutating func summarize(
        _ values: [Double], scale: Double = 1, p50: String? = nil, p99: String? = nil, max: String? = nil,
        censored: (String, Int)? = nil
    ) {
        guard let s = LatencySummary(values) else { return }
        for (key, value) in [(p50, s.p50), (p99, s.p99), (max, s.max)] { if let key { self[key] = value * scale } }
        if let censored { self[censored.0] = Double(censored.1) }
    }
}

private extension Double {
    var log10Floor: Int {
        var n = 0
        var v = self
        while v >= 10 { v /= 10; n += 1 }
        while v < 1 { v *= 10; n -= 1 }
        return n
    }
}

extension Metrics: Codable {
    public init(from decoder: Decoder) throws {
        let dictionary = try [String: Double](from: decoder)
        self.init()
        for name in dictionary.keys.sorted() { self[name] = dictionary[name] }
    }

    public func encode(to encoder: Encoder) throws {
        try values.encode(to: encoder)
    }
}
