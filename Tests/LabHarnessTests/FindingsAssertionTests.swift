import FindingsTestSupport
import LabHarness
import XCTest

/// The findings tests' one assertion (`assertReproduced`, FindingsTestSupport), fed reports built
/// here: its decision (`FindingDecision.decide`) for each way a finding can come back, since
/// corelibs XCTest cannot catch the failure the assertion records.
final class FindingsAssertionTests: XCTestCase {
    /// Two variants, `a` with a claim of its own (`t.a`); a finding that reads both (`t.ab`); a
    /// sweep finding that reads `b` (`t.sweep`).
    static let experiment: ExperimentDefinition = {
        let body: @Sendable (VariantContext) throws -> VariantRecord = { _ in VariantRecord(outcome: .completed) }
        let unused: @Sendable (FindingInputs) -> Verdict = { _ in .notJudged("not evaluated in these tests") }
        let sweep = Sweep(
            flag: "sweep", parameter: "tasks", range: 1...100, help: "", variants: [],
            findings: [Finding("t.sweep", claim: "b grows", needs: ["b"], evaluate: unused)],
            headers: (variant: "variant", size: "size"), columns: [])
        return ExperimentDefinition(
            name: "exp-test", executable: "exp-test", question: "", about: "", flags: [],
            variants: [
                Variant(
                    "a", summary: "", expect: [.expected(.completed, "a shows")], claim: Claim("t.a", "a shows"),
                    body: body),
                Variant("b", summary: "", expect: [.expected(.completed, "b shows")], body: body),
            ],
            findings: [Finding("t.ab", claim: "a and b show", needs: ["a", "b"], evaluate: unused)],
            sweep: sweep)
    }()

    func variant(
        _ name: String, _ outcome: Outcome = .completed, grade: Grade? = .expected,
        evidence: String = "as it should"
    ) -> VariantReport {
        VariantReport(name: name, outcome: outcome, grade: grade, evidence: evidence)
    }

    func decide(_ id: String, _ finding: FindingReport?, variants: [VariantReport]? = nil) -> FindingDecision {
        let report = ExperimentReport(
            experiment: "exp-test", parameters: [:],
            variants: variants ?? [variant("a"), variant("b")],
            findings: finding.map { [$0] } ?? [])
        return FindingDecision.decide(id, in: report, of: Self.experiment)
    }

    func assertFails(
        _ decision: FindingDecision, saying words: [String], file: StaticString = #filePath,
        line: UInt = #line
    ) {
        guard case .fail(let message) = decision else { return XCTFail("\(decision)", file: file, line: line) }
        for word in words { XCTAssertTrue(message.contains(word), message, file: file, line: line) }
    }

    func testAReproducedFindingPasses() throws {
        let claim = FindingReport(
            id: "t.a", applicable: true, reproduced: true,
            summary: "a ended completed; mechanism: x")
        XCTAssertEqual(decide("t.a", claim), .pass)
        let finding = FindingReport(id: "t.ab", applicable: true, reproduced: true, summary: "both; mechanism: y")
        XCTAssertEqual(decide("t.ab", finding), .pass)
        let report = ExperimentReport(
            experiment: "exp-test", parameters: [:], variants: [variant("a")],
            findings: [claim])
        try assertReproduced("t.a", in: report, of: Self.experiment)
    }

    func testANotReproducedFindingFailsWithItsSummaryAndEvidence() {
        let finding = FindingReport(
            id: "t.ab", applicable: true, reproduced: false,
            summary: "b was 3 ms; mechanism: y")
        assertFails(
            decide("t.ab", finding),
            saying: ["t.ab not reproduced", "b was 3 ms", "b ended completed: as it should"])
    }

    /// Each of the machine's outcomes in a variant the finding reads: a skip that names the
    /// variant, the outcome and the evidence, never a pass; the assertion throws `XCTSkip`.
    func testAFindingTheMachineKeptFromBeingJudgedIsSkipped() throws {
        for outcome in Outcome.machineOutcomes.sorted(by: { $0.rawValue < $1.rawValue }) {
            let finding = FindingReport(
                id: "t.ab", applicable: true, reproduced: false,
                summary: "not judged (b ended \(outcome)): the machine",
                notJudgedReason: .machineOutcome)
            let variants = [variant("a"), variant("b", outcome, grade: nil, evidence: "ran 3% of its runnable time")]
            guard case .skip(let reason) = decide("t.ab", finding, variants: variants) else {
                XCTFail("\(outcome): \(decide("t.ab", finding, variants: variants))")
                continue
            }
            XCTAssertTrue(reason.contains("b ended \(outcome): ran 3% of its runnable time"), reason)
            let report = ExperimentReport(
                experiment: "exp-test", parameters: [:], variants: variants,
                findings: [finding])
            XCTAssertThrowsError(try assertReproduced("t.ab", in: report, of: Self.experiment)) { error in
                XCTAssertTrue(error is XCTSkip, "\(error)")
            }
        }
    }

    /// Not judged for a reason of the program's or the run's (its mechanism not seen, an
    /// interrupted run), or with the machine's outcome only in a variant it does not read: a failure.
    func testAFindingNotJudgedForAnyOtherReasonFails() {
        let unseen = FindingReport(
            id: "t.a", applicable: true, reproduced: false,
            summary: "not judged (mechanism not seen: no wait)",
            notJudgedReason: .mechanismNotSeen)
        assertFails(decide("t.a", unseen), saying: ["t.a was not judged", "mechanism not seen: no wait"])
        let starvedElsewhere = [variant("a"), variant("b", .cpuStarved, grade: nil)]
        assertFails(decide("t.a", unseen, variants: starvedElsewhere), saying: ["t.a was not judged"])
        let interrupted = FindingReport(
            id: "t.ab", applicable: true, reproduced: false,
            summary: "not judged (interrupted: b ended interrupted)",
            notJudgedReason: .interrupted)
        let variants = [variant("a"), variant("b", .interrupted, grade: nil, evidence: "not started")]
        assertFails(decide("t.ab", interrupted, variants: variants), saying: ["b ended interrupted: not started"])
    }

    func testAMissingFindingFails() {
        assertFails(decide("t.ab", nil, variants: [variant("a")]), saying: ["t.ab was not evaluated", "reads a, b"])
        assertFails(decide("t.zz", nil), saying: ["t.zz is no finding of exp-test", "t.a, t.ab, t.sweep"])
    }

    func testAFindingThatDoesNotApplyFails() {
        let finding = FindingReport(
            id: "t.ab", applicable: false, reproduced: false,
            summary: "not applicable on Linux")
        assertFails(decide("t.ab", finding), saying: ["t.ab does not apply here: not applicable on Linux"])
    }

    /// A variant the finding reads that ended forbidden fails it, even reproduced; one it does
    /// not read is another test's business.
    func testAForbiddenOutcomeFailsAReproducedFinding() {
        let finding = FindingReport(id: "t.ab", applicable: true, reproduced: true, summary: "both; mechanism: y")
        let variants = [variant("a"), variant("b", .crashed, grade: .forbidden, evidence: "SIGSEGV")]
        assertFails(decide("t.ab", finding, variants: variants), saying: ["b ended crashed", "forbids: SIGSEGV"])
        let claim = FindingReport(id: "t.a", applicable: true, reproduced: true, summary: "a; mechanism: x")
        XCTAssertEqual(decide("t.a", claim, variants: variants), .pass)
    }

    func testTheVariantsAFindingReads() {
        XCTAssertEqual(Self.experiment.variantsRead(byFinding: "t.a"), ["a"])
        XCTAssertEqual(Self.experiment.variantsRead(byFinding: "t.ab"), ["a", "b"])
        XCTAssertEqual(Self.experiment.variantsRead(byFinding: "t.sweep"), ["b"])
        XCTAssertNil(Self.experiment.variantsRead(byFinding: "t.zz"))
    }
}
