import Foundation
import LabHarness

/// A tiny experiment with outcomes known in advance, to test `ExperimentMain` and the runner
/// end to end: one variant completes, one deadlocks on its main thread, one traps, one leaks
/// on purpose, one measures and then traps, one ends with an outcome it forbids (no finding
/// reads it), one's report cannot be encoded as JSON, and one finding does not apply anywhere.
public let fixtureExperiment = ExperimentDefinition(
    name: "fixture",
    executable: "lab-fixture",
    question: "Does the harness turn hangs and traps into outcomes?",
    about: "Variants with known outcomes for the harness's own tests.",
    flags: [
        .integer("count", default: 5, quick: 2, range: 1...1000, help: "items the ok variant counts"),
        .seconds("hold", default: 0.2, quick: 0.1, range: 0.01...10, help: "how long the ok variant takes"),
        .toggle("break", help: "make the ok variant fail, so its finding does not reproduce"),
    ],
    variants: [
        Variant(
            "ok", summary: "counts to --count over --hold seconds",
            expect: [OutcomeExpectation(.completed, .expected, "it finished")],
            time: .from { (p: FixtureParameters) in TrialTime(expected: p.hold, budget: 60, progressTotal: p.count) },
            claim: Claim("fixture.ok-completes", "the ok variant completes")
        ) { context in
            let parameters = context.parameters(FixtureParameters.self)
            let count = parameters.count
            let step = parameters.hold / Double(count)
            let start = MonotonicClock.now()
            for _ in 0..<count { MonotonicClock.sleep(for: step); context.progress.advance() }
            var metrics = Metrics()
            metrics[FixtureMetric.total] = Double(count)
            metrics[FixtureMetric.completed] = Double(context.progress.value)
            metrics[Metrics.wall] = MonotonicClock.now() - start
            return VariantRecord(
                outcome: parameters.breaks ? .failed : .completed, metrics: metrics,
                series: ["steps": [[0, 0], [1, Double(count)]]],
                events: [TimedEvent(t: 0, label: "start"), TimedEvent(t: context.elapsed(), label: "end")],
                mechanism: .when(
                    context.progress.value == count, "\(count) steps counted", otherwise: "a step was missed"))
        },
        Variant(
            "hang", summary: "blocks its main thread forever after one step",
            expect: [
                OutcomeExpectation(.deadlock, .expected, "the harness killed it"),
                OutcomeExpectation(.completed, .forbidden, "a semaphore nobody signals was signalled"),
            ],
            time: .fixed(TrialTime(expected: 0.5, budget: 5, stallWindow: 0.5)),
            progressMetric: FixtureMetric.completed
        ) { context in
            context.progress.advance()
            DispatchSemaphore(value: 0).wait()
            return VariantRecord(outcome: .completed)
        },
        Variant(
            "trap", summary: "calls fatalError",
            expect: [OutcomeExpectation(.crashed, .expected, "the trap ended the child")],
            claim: Claim("fixture.trap-crashes", "a trap is reported as a crash")
        ) { context in
            context.checkpoint(VariantRecord(outcome: .crashed, mechanism: .seen("the body reached its fatalError")))
            fatalError("fixture variant trapped on purpose")
        },
        Variant(
            "sleepy", summary: "sleeps a minute while making no progress (for interrupting)",
            expect: [OutcomeExpectation(.interrupted, .expected, "stopped by Ctrl-C")],
            includedByDefault: false, time: .fixed(TrialTime(expected: 60, budget: 120))
        ) { _ in
            MonotonicClock.sleep(for: 60)
            return VariantRecord(outcome: .completed)
        },
        Variant(
            "leak", summary: "reports a leak (an outcome the variant decides itself)",
            expect: [OutcomeExpectation(.leaked, .interesting, "reported by the variant")],
            includedByDefault: false
        ) { _ in
            VariantRecord(outcome: .leaked, metrics: ["alive": 1])
        },
        Variant(
            "measure-then-trap", summary: "hands what it measured to the harness, then traps",
            expect: [OutcomeExpectation(.crashed, .expected, "the trap ended the child after its checkpoint")],
            includedByDefault: false
        ) { context in
            context.checkpoint(
                VariantRecord(
                    outcome: .crashed, metrics: ["measured": 42], evidence: "measured 42 before the trap",
                    series: ["steps": [[0, 1]]], events: [TimedEvent(t: 0, label: "checkpoint")]))
            fatalError("fixture variant trapped after its checkpoint")
        },
        Variant(
            "silent-exit", summary: "exits 0 without writing a result",
            expect: [OutcomeExpectation(.completed, .expected, "what a silent exit must not be read as")],
            includedByDefault: false
        ) { _ in
            exit(0)
        },
        Variant(
            "trap-process-exits", summary: "runs a trap process that exits 0 without a result instead of trapping",
            expect: [OutcomeExpectation(.crashed, .expected, "what the trap process was for")],
            includedByDefault: false
        ) { context in
            guard context.isTrapProcess else { return context.runTrapProcess(budget: 30, trapSays: "never said") }
            context.checkpoint(VariantRecord(outcome: .crashed, evidence: "measured before the step"))
            exit(0)
        },
        Variant(
            "forbidden", summary: "ends with an outcome its declaration forbids; no finding reads it",
            expect: [
                OutcomeExpectation(.completed, .expected, "what a correct variant would do"),
                OutcomeExpectation(.failed, .forbidden, "the variant broke its own contract"),
            ],
            includedByDefault: false
        ) { _ in
            VariantRecord(outcome: .failed, evidence: "failed on purpose")
        },
        Variant(
            "unencodable", summary: "completes under a claim whose threshold JSON cannot hold (infinity)",
            expect: [OutcomeExpectation(.completed, .expected, "it finished")],
            includedByDefault: false,
            claim: Claim(
                "fixture.unencodable", "the report holds a number JSON has no form for",
                thresholds: [Threshold("ceiling", .infinity)])
        ) { _ in
            VariantRecord(outcome: .completed, mechanism: .seen("the claim carries an infinite threshold"))
        },
    ],
    findings: [
        Finding("fixture.hang-deadlocks", claim: "a blocked main thread is reported as a deadlock", needs: ["hang"]) {
            inputs in
            let hang = inputs["hang"]
            return Verdict(
                symptom: hang.outcome == .deadlock,
                mechanism: .when(
                    hang[FixtureMetric.completed] == 1, "the child made its one step, then none",
                    otherwise: "the child never made its first step"),
                "hang ended \(hang.outcome) with completed \(Format.count(hang[FixtureMetric.completed] ?? -1)): \(hang.evidence ?? "")"
            )
        },
        Finding(
            "fixture.never-applies", claim: "applies nowhere", needs: ["ok"], appliesWhen: { _ in false },
            notApplicableReason: "a fixture that applies nowhere"
        ) { _ in .notJudged("unreachable") },
    ],
    columns: [.ratio("done", "completed", of: "total"), .seconds("wall", "wall_s")],
    defaultJobs: 3,
    parameters: FixtureParameters.self
)

/// The fixture's flags, parsed once.
public struct FixtureParameters: ExperimentParameters {
    /// `--count`: items the ok variant counts.
    public var count: Int
    /// `--hold`: how long the ok variant takes.
    public var hold: Seconds
    /// `--break`: make the ok variant fail.
    public var breaks: Bool

    public init(_ options: ParsedOptions) {
        count = options.int("count")
        hold = options.double("hold")
        breaks = options.bool("break")
    }
}

/// The fixture's metric keys, for the harness's tests.
public enum FixtureMetric {
    /// Items the ok variant counted (the hang variant's progress when it was killed).
    public static let completed = "completed"
    /// Items the ok variant set out to count.
    public static let total = "total"
    /// What measure-then-trap measured before its trap.
    public static let measured = "measured"
}
