/// One point of a sweep (schema 1's optional top-level `sweep` array): a variant run alone at
/// one size, with what it measured (see `Sweep`).
///
/// The report keeps every point's raw metrics, so a reader (or `lab report`, which draws them
/// on log axes) can redo any ratio. The JSON keys are `variant`, `tasks` (the size, under the
/// name schema 1 gave it) and `metrics`.
public struct SweepPoint: Sendable, Equatable, Codable {
    /// The variant's name, as the sweep's family names it.
    public var variant: String
    /// The size the point ran at (the value of the sweep's parameter).
    public var size: Int
    public var metrics: Metrics

    enum CodingKeys: String, CodingKey {
        case variant, size = "tasks", metrics
    }

    public init(variant: String, size: Int, metrics: Metrics) {
        self.variant = variant
        self.size = size
        self.metrics = metrics
    }

    /// A metric by name.
    public subscript(metric: String) -> Double? { metrics[metric] }
}
