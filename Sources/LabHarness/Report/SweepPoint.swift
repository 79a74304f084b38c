/// One point of a sweep (schema 1's optional top-level `sweep` array): a variant run alone at
/// one size, with what it measured.
///
/// A sweep asks how a mechanism's figures change with the load: the same variant at 10, 100,
/// 1000 ... requests, each point in a process of its own. The report keeps every point's raw
/// metrics, so a reader (or `lab report`, which draws them on log axes) can redo any ratio.
public struct SweepPoint: Sendable, Equatable, Codable {
    /// The variant's name, as in `variants`.
    public var variant: String
    /// The size of the point: how many requests (tasks) it ran.
    public var tasks: Int
    public var metrics: Metrics

    public init(variant: String, tasks: Int, metrics: Metrics) {
        self.variant = variant
        self.tasks = tasks
        self.metrics = metrics
    }

    /// A metric by name.
    public subscript(metric: String) -> Double? { metrics[metric] }
}
