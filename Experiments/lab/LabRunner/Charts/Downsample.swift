/// Reduces what a chart draws to what a screen can show. A chart is a few hundred pixels
/// wide: a million points drawn one by one only make the page huge (and slow to open) without
/// changing a pixel of it.
enum Downsample {
    /// At most about four points per pixel column: in each run of consecutive points that fall
    /// into one column, the first, the lowest, the highest and the last, in their order, so a
    /// line through them has the same peaks, troughs and ends as one through all the points.
    /// `fraction` places a time on the axis (0...1). Out-of-order input that defeats the
    /// columns is thinned evenly down to the same bound.
    static func line(
        _ points: [(t: Double, value: Double)], columns: Int, fraction: (Double) -> Double
    ) -> [(t: Double, value: Double)] {
        let limit = max(columns, 1) * 4
        guard points.count > limit else { return points }
        func column(_ t: Double) -> Int {
            let f = fraction(t)
            return f.isFinite ? Int(min(max(f, 0), 1) * Double(columns)) : 0
        }
        var kept: [(t: Double, value: Double)] = []
        var start = 0
        while start < points.count {
            let c = column(points[start].t)
            var end = start + 1
            var low = start, high = start
            while end < points.count, column(points[end].t) == c {
                if points[end].value < points[low].value { low = end }
                if points[end].value > points[high].value { high = end }
                end += 1
            }
            var seen = Set<Int>()
            for i in [start, low, high, end - 1].sorted() where seen.insert(i).inserted { kept.append(points[i]) }
            start = end
        }
        return kept.count > limit ? evenly(kept, limit: limit) : kept
    }

    /// At most `limit` of `values`, taken at evenly spaced ranks of the sorted values: dots
    /// drawn from them show the same distribution (its extremes included).
    static func spread(_ values: [Double], limit: Int) -> [Double] {
        guard values.count > limit, limit > 1 else { return values }
        return evenly(values.sorted(), limit: limit)
    }

    /// `limit` items at evenly spaced positions, the first and last included.
    static func evenly<T>(_ items: [T], limit: Int) -> [T] {
        guard items.count > limit, limit > 1 else { return items }
        let last = items.count - 1
        return (0..<limit).map { items[$0 * last / (limit - 1)] }
    }
}
