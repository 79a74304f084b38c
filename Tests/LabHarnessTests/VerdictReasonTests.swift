import LabHarness
import XCTest

/// A verdict carries why it was not judged as a kind, decided where the verdict is made, and
/// the JSON keeps it (`not_judged_reason`), so no reader recovers it from the sentence.
final class VerdictReasonTests: XCTestCase {
    func testAVerdictSaysWhatItDecided() {
        XCTAssertEqual(Verdict(symptom: true, mechanism: .seen("seen"), "held").status, .reproduced)
        XCTAssertEqual(Verdict(symptom: false, mechanism: .seen("seen"), "did not").status, .notReproduced)
        let unseen = Verdict(symptom: true, mechanism: .notSeen("no caller started"), "held")
        XCTAssertEqual(unseen.status, .notJudged(.mechanismNotSeen))
        XCTAssertFalse(unseen.reproduced, "a symptom without its cause reproduces nothing")
        XCTAssertEqual(Verdict.notJudged("the sweep spans 10×").status, .notJudged(.variantMissing))
        XCTAssertEqual(
            Verdict.notJudged("CPU time not measured", reason: .mechanismNotSeen).status, .notJudged(.mechanismNotSeen))
    }

    /// The one rule for the trials a claim reads: the machine (or an interruption) first, then a
    /// mechanism not seen; every trial judged otherwise.
    func testTheRuleForTheTrialsAClaimReads() {
        let fine = VariantReport(name: "a", outcome: .completed)
        let starved = VariantReport(name: "b", outcome: .cpuStarved, evidence: "the machine: waited")
        let stopped = VariantReport(name: "c", outcome: .interrupted)
        var unseen = VariantReport(name: "d", outcome: .deadlock)
        unseen.mechanism = .notSeen("no caller waiting")
        XCTAssertNil(NotJudgedReason.before(reading: [fine]))
        XCTAssertEqual(NotJudgedReason.before(reading: [fine, unseen, starved])?.reason, .machineOutcome)
        XCTAssertEqual(NotJudgedReason.before(reading: [fine, unseen, starved])?.variant.name, "b")
        XCTAssertEqual(NotJudgedReason.before(reading: [stopped])?.reason, .interrupted)
        XCTAssertEqual(NotJudgedReason.before(reading: [fine, unseen])?.reason, .mechanismNotSeen)
    }

    func testTheReasonTravelsInTheJSONAndAJudgedFindingAddsNoKey() throws {
        let unjudged = FindingReport(
            id: "x.y", applicable: true, reproduced: false, summary: "not judged (v ended cpu-starved): the machine: ...",
            notJudgedReason: .machineOutcome)
        let text = String(decoding: try JSONEncoder().encode(unjudged), as: UTF8.self)
        XCTAssertTrue(text.contains("\"not_judged_reason\":\"machine-outcome\""), text)
        XCTAssertTrue(text.contains("\"judged\":false"), text)
        XCTAssertEqual(try JSONDecoder().decode(FindingReport.self, from: Data(text.utf8)), unjudged)
        let judged = FindingReport(id: "x.y", applicable: true, reproduced: true, summary: "held")
        let plain = String(decoding: try JSONEncoder().encode(judged), as: UTF8.self)
        XCTAssertFalse(plain.contains("judged"), plain)
        // A report written before the key existed: judged false, no reason.
        let older = try JSONDecoder().decode(
            FindingReport.self,
            from: Data(
                #"{"id":"x.y","applicable":true,"reproduced":false,"summary":"not judged","judged":false}"#.utf8))
        XCTAssertEqual(older.status, .notJudged(.machineOutcome))
    }
}
