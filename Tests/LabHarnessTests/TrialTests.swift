import LabHarness
import XCTest

final class TrialTests: XCTestCase {
    private let expectations = [
        OutcomeExpectation(.deadlock, .expected, "the pool ran out"),
        OutcomeExpectation(.completed, .interesting, "the pool was big enough"),
    ]

    func testUndeclaredOutcomesAreForbidden() {
        XCTAssertEqual(expectations.grade(of: .deadlock), .expected)
        XCTAssertEqual(expectations.grade(of: .completed), .interesting)
        XCTAssertEqual(expectations.grade(of: .crashed), .forbidden)
        XCTAssertEqual(expectations.meaning(of: .deadlock), "the pool ran out")
        XCTAssertLessThan(Grade.expected, Grade.interesting)
        XCTAssertLessThan(Grade.interesting, Grade.forbidden)
    }

    /// Three trials of a variant run in-process and are tallied: every outcome is counted, the
    /// outcome reported is the one with the worst grade (so "it deadlocks" does not hold when
    /// one of three trials completed: it did, by the most frequent outcome), the worst grade
    /// seen is kept, metrics are medians.
    func testTrialsAreTalliedGradedAndSummarised() throws {
        let definition = ExperimentDefinition(
            name: "tally", executable: "tally", question: "?", about: "",
            flags: [],
            variants: [
                Variant("mixed", summary: "deadlocks twice, completes once", expect: expectations) { context in
                    let n = Sequencer.shared.next()
                    return VariantRecord(outcome: n == 1 ? .completed : .deadlock, metrics: ["wall_s": Double(n)])
                }.inProcess
            ],
            findings: [
                Finding("tally.deadlocks", claim: "it deadlocks", needs: ["mixed"]) { inputs in
                    Verdict(
                        symptom: inputs["mixed"].outcome == .deadlock, mechanism: .seen("three trials ran"),
                        "\(inputs["mixed"].trials ?? [:])")
                }
            ])
        Sequencer.shared.reset()
        let report = try ExperimentRunner.run(definition, arguments: ["--trials", "3"])
        let variant = try XCTUnwrap(report.variant("mixed"))
        XCTAssertEqual(variant.outcome, .completed)
        XCTAssertEqual(variant.trials, ["deadlock": 2, "completed": 1])
        XCTAssertEqual(variant.grade, .interesting)
        XCTAssertEqual(variant[Metrics.wall], 1)  // the median of 0, 1, 2
        XCTAssertEqual(report.finding("tally.deadlocks")?.reproduced, false)
        XCTAssertFalse(report.allReproduced)
        XCTAssertEqual(report.parameters["trials"], .number(3))
    }

    /// Findings whose variants did not run are left out; inapplicable ones never fail a run.
    func testFindingsNeedTheirVariantsAndApplicability() throws {
        let definition = ExperimentDefinition(
            name: "needs", executable: "needs", question: "?", about: "", flags: [],
            variants: [
                Variant(
                    "a", summary: "", expect: [OutcomeExpectation(.completed, .expected, "")],
                    claim: Claim("needs.a", "")
                ) { _ in
                    VariantRecord(outcome: .completed, mechanism: .seen("a ran"))
                }.inProcess,
                Variant(
                    "b", summary: "", expect: [OutcomeExpectation(.completed, .expected, "")],
                    claim: Claim("needs.b", "")
                ) { _ in
                    VariantRecord(outcome: .failed, mechanism: .seen("b ran"))
                }.inProcess,
            ],
            findings: [
                Finding("needs.elsewhere", claim: "", needs: ["a"], appliesWhen: { _ in false }) { _ in .notJudged("") }
            ])
        let onlyA = try ExperimentRunner.run(definition, arguments: ["--variant", "a"])
        XCTAssertEqual(onlyA.findings.map(\.id), ["needs.a", "needs.elsewhere"])
        XCTAssertEqual(onlyA.finding("needs.elsewhere")?.applicable, false)
        XCTAssertTrue(onlyA.allReproduced)

        let both = try ExperimentRunner.run(definition, arguments: [])
        XCTAssertEqual(both.finding("needs.b")?.reproduced, false)
        XCTAssertEqual(both.variant("b")?.grade, .forbidden)
        XCTAssertFalse(both.allReproduced)
    }
}

import Synchronization

/// Hands out 0, 1, 2, ... so in-process trials can differ in a known way.
final class Sequencer: Sendable {
    static let shared = Sequencer()
    private let value = Atomic<Int>(0)
    func next() -> Int { value.add(1, ordering: .relaxed).oldValue }
    func reset() { value.store(0, ordering: .relaxed) }
}
