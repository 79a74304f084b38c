/// Count, percentiles, maximum and mean of a set of durations.
///
/// Percentiles use the nearest-rank method: the p-th percentile is the smallest sample such that
/// at least p % of the samples are no greater than it. It always returns a value that was
/// actually observed, which keeps "p99 lateness was 12 ms" honest for small sample counts
/// (with fewer than 100 samples, p99 is the maximum).
public struct LatencySummary: Sendable, Equatable, Codable {
    public var count: Int
    public var min: Double
    public var p50: Double
    public var p90: Double
    public var p99: Double
    public var max: Double
    public var mean: Double

    /// Summarises `samples`; `nil` when there are none, since an empty percentile means nothing.
    public init?<S: Sequence>(_ samples: S) where S.Element == Double {
        let sorted = samples.filter { $0.isFinite }.sorted()
        guard !sorted.isEmpty else { return nil }
        count = sorted.count
        min = sorted[0]
        max = sorted[sorted.count - 1]
        mean = sorted.reduce(0, +) / Double(sorted.count)
        p50 = LatencySummary.nearestRank(50, sorted)
        p90 = LatencySummary.nearestRank(90, sorted)
        p99 = LatencySummary.nearestRank(99, sorted)
    }

    /// The nearest-rank percentile `p` (0 < p <= 100) of an ascending, non-empty array.
    static func nearestRank(_ p: Double, _ sorted: [Double]) -> Double {
        precondition(!sorted.isEmpty, "nearestRank needs at least one sample")
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[Swift.min(Swift.max(rank, 1), sorted.count) - 1]
    }

    /// The percentile `p` of any sample set, `nil` when it is empty.
    public static func percentile<S: Sequence>(_ p: Double, of samples: S) -> Double? where S.Element == Double {
        let sorted = samples.filter { $0.isFinite }.sorted()
        return sorted.isEmpty ? nil : nearestRank(p, sorted)
    }

    /// The summary as metrics named `prefix.count`, `prefix.p50` ... with a unit suffix
    /// (`wait` and `_s` give `wait.p50_s`), values multiplied by `scale` first (1000 for ms).
    public func metrics(prefix: String, unit: String, scale: Double = 1) -> Metrics {
        var m = Metrics()
        m["\(prefix).p50\(unit)"] = p50 * scale
        m["\(prefix).p90\(unit)"] = p90 * scale
        m["\(prefix).p99\(unit)"] = p99 * scale
        m["\(prefix).max\(unit)"] = max * scale
        m["\(prefix).mean\(unit)"] = mean * scale
        return m
    }
}
