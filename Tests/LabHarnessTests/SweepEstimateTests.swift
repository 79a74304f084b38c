import LabHarness
import XCTest

/// The "will take about" line before a run of many trials: a sweep runs its family at every
/// size one point at a time, so its estimate is the sum of its points, not the default plan's.
final class SweepEstimateTests: XCTestCase {
    private func definition() -> ExperimentDefinition {
        let ok = [OutcomeExpectation(.completed, .expected, "")]
        let body: @Sendable (VariantContext) -> VariantRecord = { _ in VariantRecord(outcome: .completed) }
        return ExperimentDefinition(
            name: "axis", executable: "axis", question: "?", about: "",
            flags: [FlagSpec("size", .integer(range: 1...1000, default: 10, quick: nil), help: "size")],
            variants: [Variant("plain", summary: "", expect: ok, time: .fixed(TrialTime(expected: 100)), body: body)],
            findings: [], defaultJobs: 4,
            sweep: Sweep(
                flag: "sweep", parameter: "size", range: 1...1000, help: "sizes",
                variants: [
                    Variant("a", summary: "", expect: ok, time: .fixed(TrialTime(expected: 2)), body: body),
                    Variant("b", summary: "", expect: ok, time: .fixed(TrialTime(expected: 3)), body: body),
                ],
                findings: [], headers: (variant: "design", size: "size"), columns: []))
    }

    func testASweepIsEstimatedPointByPoint() throws {
        let d = definition()
        let sweep = ExperimentRunner.estimate(d, options: try d.parser.parse(["--sweep", "10,20,30", "--trials", "2"]))
        XCTAssertEqual(sweep.variants, 6, "2 designs at 3 sizes")
        XCTAssertEqual(sweep.trials, 12)
        XCTAssertEqual(sweep.seconds, 2 * 3 * (2 + 3), accuracy: 1e-9, "points run one at a time")
        let plain = ExperimentRunner.estimate(d, options: try d.parser.parse(["--trials", "2"]))
        XCTAssertEqual(plain.variants, 1)
        XCTAssertEqual(plain.seconds, 100, accuracy: 1e-9, "the two trials run side by side")
    }
}
