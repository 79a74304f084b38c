@testable import LabHarness
import XCTest

/// The machine's outcomes and `interrupted` are graded neither way, and a finding that needs
/// such a variant is "not judged" with the reason, never reproduced or refuted.
final class MachineGradeTests: XCTestCase {
    private let variant = Variant("v", summary: "a variant", expect: [OutcomeExpectation(.completed, .expected, "ran")]) { _ in
        VariantRecord(outcome: .completed)
    }

    func testAnInterruptedOrMachineBrokenTrialIsNotForbidden() {
        for outcome in [Outcome.interrupted, .resourceLimited, .cpuStarved, .outOfMemory] {
            let report = ExperimentRunner.aggregate(variant, [VariantRecord(outcome: .completed),
                                                             VariantRecord(outcome: outcome, evidence: "the machine: figures")])
            XCTAssertEqual(report.outcome, outcome, "one broken trial leaves the variant unjudged")
            XCTAssertNil(report.grade, "\(outcome) is neither allowed nor forbidden")
        }
        let undeclared = ExperimentRunner.aggregate(variant, [VariantRecord(outcome: .deadlock)])
        XCTAssertEqual(undeclared.grade, .forbidden, "the program's own undeclared outcome stays forbidden")
    }

    func testAFindingOnABrokenVariantIsNotJudged() throws {
        let finding = Finding("x.claim", claim: "it holds", needs: ["v"]) { _ in Verdict(symptom: true, mechanism: .seen("seen"), "held") }
        let options = try CommandLineParser(program: "x", flags: []).parse([])
        for (outcome, why) in [(Outcome.cpuStarved, "the machine"), (.interrupted, "interrupted")] {
            let broken = VariantReport(name: "v", outcome: outcome, evidence: "the machine: waited 3 s for a CPU")
            let report = try XCTUnwrap(finding.report(variants: ["v": broken], options: options, platform: .current, parameters: NoParameters(options)))
            XCTAssertEqual(report.judged, false)
            XCTAssertFalse(report.reproduced)
            XCTAssertTrue(report.applicable)
            XCTAssertEqual(report.summary, "not judged (\(why): v ended \(outcome): waited 3 s for a CPU)")
        }
        let fine = try XCTUnwrap(finding.report(variants: ["v": VariantReport(name: "v", outcome: .completed)], options: options, platform: .current, parameters: NoParameters(options)))
        XCTAssertNil(fine.judged, "a judged finding's JSON keeps schema 1's keys only")
        XCTAssertTrue(fine.reproduced)
    }
}
