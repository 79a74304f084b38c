/// A performance target an experiment sets for itself, judged on a run of its own (other
/// trials sharing the cores would blur it). `lab bench` runs the experiment with `arguments`
/// and reports the figures `judge` derives from that run; the experiment's own report can quote
/// the same figures, so the runner never needs to know the experiment's variants or metrics.
public struct PerformanceBar: Sendable {
    /// One figure of the bar: a measured value against its target.
    public struct Figure: Sendable, Equatable {
        public var name: String
        public var value: Double
        public var unit: String
        /// The target, in words: `<= 1.05`, `< 10 ms`.
        public var target: String
        public var met: Bool
        public var detail: String

        public init(name: String, value: Double, unit: String, target: String, met: Bool, detail: String) {
            self.name = name
            self.value = value
            self.unit = unit
            self.target = target
            self.met = met
            self.detail = detail
        }
    }

    /// What the bar is, in a few words, for progress lines.
    public var title: String
    /// The experiment's arguments for the run that measures the bar (`--json` is added).
    public var arguments: [String]
    /// The bar's figures from that run's report; empty when the report lacks what they need.
    public var judge: @Sendable (ExperimentReport) -> [Figure]

    public init(title: String, arguments: [String], judge: @escaping @Sendable (ExperimentReport) -> [Figure]) {
        self.title = title
        self.arguments = arguments
        self.judge = judge
    }
}
