import Foundation
import LabHarness

/// `--sweep`: every design that keeps many timeouts without blocking on the pool, with async
/// callers, at each request count, each point in a child process of its own and one at a time
/// (points that shared the two cores would blur each other's lateness).
///
/// The sweep is one variant (`sweep`) whose trial runs in a child like any other; that child
/// launches one grandchild per point, the same program with `--sweep-point DESIGN:COUNT`. Each
/// point's metrics travel back in the sweep's record under `DESIGN@COUNT/metric`, so repeated
/// trials aggregate as usual; `points(from:)` lifts them into the report's `sweep` array.
enum RunloopSweep {
    /// The sweep variant's body: a point when this process is one, else every point.
    static func run(_ context: VariantContext) throws -> VariantRecord {
        if let point = context.options.text("sweep-point") {
            let (design, tasks) = try ScaleParameters.sweepPoint(point)
            return try ScaleTrial.run(context, design: design, tasks: tasks)
        }
        let timeout = RunloopParameters(context.options).timeout
        let plan = ScaleParameters.points(context.options)
        guard !plan.isEmpty else { throw SetupError("no sweep counts (--sweep N,N,...)") }
        let (executable, prefix) = relaunch()
        var metrics = Metrics()
        var missing: [String] = []
        let startedAt = MonotonicClock.now()
        for (design, tasks) in plan {
            let arguments = prefix + ["--child-variant", RunloopVariant.sweep.rawValue,
                                      "--sweep-point", "\(design.rawValue):\(tasks)", "--timeout", String(timeout)]
            let spec = ChildSpec(executable: executable, arguments: arguments, environment: ["SWIFT_BACKTRACE": "enable=no"],
                                 budget: ScaleParameters.trialBudget(tasks: tasks, timeout: timeout) + 20)
            let record = pointRecord(try? ChildProcess.run(spec))
            if record.outcome != .completed { missing.append("\(design.rawValue) at \(Format.count(Double(tasks))): \(record.outcome) (\(record.evidence ?? ""))") }
            for (name, value) in record.metrics { metrics[key(design.rawValue, tasks, name)] = value }
            context.progress.advance()
        }
        metrics[RunloopMetric.wallS] = MonotonicClock.now() - startedAt
        let counts = Array(Set(plan.map(\.tasks))).sorted()
        let scope = "\(plan.count) points (\(ScaleParameters.sweptDesigns.count) designs × \(counts.map { Format.count(Double($0)) }.joined(separator: ", ")) requests), each in a process of its own"
        guard missing.isEmpty else {
            return VariantRecord(outcome: .timedOut, metrics: metrics, evidence: "\(scope); not every point finished: \(missing.joined(separator: "; "))")
        }
        return VariantRecord(outcome: .completed, metrics: metrics, evidence: "\(scope), one at a time, async callers, \(Format.seconds(timeout)) timeout")
    }

    /// A point's record from its child run: the result it wrote, or what the harness saw.
    private static func pointRecord(_ run: ChildRun?) -> VariantRecord {
        guard let run else { return VariantRecord(outcome: .failed, evidence: "the point's child could not start") }
        if let payload = run.resultPayload, let record = try? JSONDecoder().decode(VariantRecord.self, from: Data(payload.utf8)) {
            return record
        }
        return VariantRecord(outcome: Outcome(rawValue: run.outcome.rawValue), evidence: run.evidence)
    }

    /// The program and the arguments that select this experiment, as this child was launched:
    /// everything before `--child-variant` (`lab` hosts the experiment behind a word of its own).
    private static func relaunch() -> (String, [String]) {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let prefix = arguments.firstIndex(of: "--child-variant").map { Array(arguments[..<$0]) } ?? []
        return (ChildProcess.currentExecutablePath(), prefix)
    }

    /// The metric key a point's metric travels under in the sweep's record.
    static func key(_ design: String, _ tasks: Int, _ metric: String) -> String { "\(design)@\(tasks)/\(metric)" }

    /// The points in a sweep variant's report, designs in table order, counts ascending.
    static func points(from report: VariantReport) -> [SweepPoint] {
        var byPoint: [String: (design: String, tasks: Int, metrics: Metrics)] = [:]
        for (name, value) in report.metrics {
            guard let at = name.firstIndex(of: "@"), let slash = name.firstIndex(of: "/"), at < slash,
                  let tasks = Int(name[name.index(after: at)..<slash]) else { continue }
            let design = String(name[..<at]), point = String(name[..<slash])
            byPoint[point, default: (design, tasks, Metrics())].metrics[String(name[name.index(after: slash)...])] = value
        }
        let order = ScaleParameters.sweptDesigns.map(\.rawValue)
        return byPoint.values
            .sorted { a, b in
                let ia = order.firstIndex(of: a.design) ?? order.count, ib = order.firstIndex(of: b.design) ?? order.count
                return ia != ib ? ia < ib : a.tasks < b.tasks
            }
            .map { SweepPoint(variant: $0.design, tasks: $0.tasks, metrics: $0.metrics) }
    }

    /// The report's `sweep` array: the sweep variant's points, when it ran.
    @Sendable static func reportPoints(_ variants: [VariantReport]) -> [SweepPoint]? {
        guard let sweep = variants.first(where: { $0.name == RunloopVariant.sweep.rawValue }) else { return nil }
        let points = points(from: sweep)
        return points.isEmpty ? nil : points
    }
}
