import LabHarness
import XCTest

/// A claim is its variant's outcome grade *and* its mechanism: the symptom alone never
/// reproduces it, whether the body saw no cause or said nothing about one.
final class ClaimEvidenceTests: XCTestCase {
    private func run(_ mechanism: Evidence?) throws -> ExperimentReport {
        let definition = ExperimentDefinition(
            name: "evidence", executable: "evidence", question: "?", about: "", flags: [],
            variants: [
                Variant(
                    "v", summary: "",
                    expect: [OutcomeExpectation(.deadlock, .expected, "callers held the pool")],
                    claim: Claim("evidence.v", "callers hold the pool")
                ) { _ in
                    VariantRecord(outcome: .deadlock, evidence: "no timeout fired", mechanism: mechanism)
                }.inProcess
            ],
            findings: [])
        return try ExperimentRunner.run(definition, arguments: [])
    }

    func testTheSymptomWithItsMechanismReproduces() throws {
        let finding = try XCTUnwrap(try run(.seen("3 callers seen waiting")).finding("evidence.v"))
        XCTAssertTrue(finding.reproduced)
        XCTAssertTrue(finding.summary.contains("mechanism: 3 callers seen waiting"), finding.summary)
    }

    func testTheSymptomWithoutItsMechanismIsNotJudged() throws {
        let finding = try XCTUnwrap(try run(.notSeen("no caller started")).finding("evidence.v"))
        XCTAssertFalse(finding.reproduced)
        XCTAssertEqual(finding.judged, false)
        XCTAssertEqual(finding.status, .notJudged(.mechanismNotSeen))
        XCTAssertTrue(finding.summary.hasPrefix("not judged (mechanism not seen: no caller started)"), finding.summary)
    }

    func testASymptomWhoseBodyRecordedNoMechanismIsNotJudged() throws {
        let finding = try XCTUnwrap(try run(nil).finding("evidence.v"))
        XCTAssertFalse(finding.reproduced)
        XCTAssertEqual(finding.judged, false)
        XCTAssertEqual(finding.status, .notJudged(.mechanismNotSeen))
        XCTAssertTrue(finding.summary.hasPrefix("not judged (mechanism not recorded"), finding.summary)
    }
}
