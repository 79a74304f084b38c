import LabHarness
import XCTest

/// What a findings test makes of one finding of a run: the decision `assertReproduced` acts on,
/// kept apart from XCTest so that its own tests can read it (corelibs XCTest has no
/// `XCTExpectFailure` to catch a failure the assertion records).
public enum FindingDecision: Sendable, Equatable {
    /// The finding applies, was judged and reproduced, and no variant it reads ended forbidden.
    case pass
    /// The machine kept the finding from being judged; the reason names the variant, the
    /// machine's outcome and its evidence.
    case skip(String)
    /// Anything else, with the finding's summary and the outcome and evidence of each variant
    /// it reads.
    case fail(String)

    /// The decision on finding `id` of `experiment` in `report`, by the contract of
    /// `assertReproduced(_:in:of:file:line:)`, checked in this order: the id and the finding
    /// exist, it applies, no variant it reads ended forbidden, it was judged (else: skip when a
    /// variant it reads ended in a machine outcome, fail otherwise), it reproduced.
    public static func decide(
        _ id: String, in report: ExperimentReport,
        of experiment: ExperimentDefinition
    ) -> FindingDecision {
        guard let names = experiment.variantsRead(byFinding: id) else {
            return .fail(
                "\(id) is no finding of \(experiment.name): its findings are "
                    + experiment.findingIDs.joined(separator: ", "))
        }
        let read = names.compactMap { report.variant($0) }
        let variants = read.isEmpty ? "" : " [" + read.map(describe).joined(separator: "; ") + "]"
        guard let finding = report.finding(id) else {
            let ran = report.variants.map(\.name).joined(separator: ", ")
            return .fail("\(id) was not evaluated: it reads \(names.joined(separator: ", ")), the run had \(ran)")
        }
        guard finding.applicable else { return .fail("\(id) does not apply here: \(finding.summary)") }
        if let forbidden = read.first(where: { $0.grade == .forbidden }) {
            return .fail(
                "\(id): \(forbidden.name) ended \(forbidden.outcome), which its declaration forbids: "
                    + "\(forbidden.evidence ?? "no evidence"); the finding: \(finding.summary)")
        }
        if case .notJudged(let reason) = finding.status {
            // The reason the verdict carries; the machine must also be seen in a trial it reads.
            if reason == .machineOutcome,
                let machine = read.first(where: { Outcome.machineOutcomes.contains($0.outcome) })
            {
                return .skip("\(id) not judged: the machine broke the trial: \(describe(machine))")
            }
            return .fail("\(id) was not judged (\(reason.rawValue)): \(finding.summary)\(variants)")
        }
        guard finding.reproduced else { return .fail("\(id) not reproduced: \(finding.summary)\(variants)") }
        return .pass
    }

    private static func describe(_ variant: VariantReport) -> String {
        "\(variant.name) ended \(variant.outcome)" + (variant.evidence.map { ": \($0)" } ?? "")
    }
}

extension ExperimentDefinition {
    /// The variants finding `id` reads: its claim's variant, or the `needs` of a finding or of
    /// a sweep's finding; `nil` when the experiment declares no finding `id`.
    public func variantsRead(byFinding id: String) -> [String]? {
        if let finding = (findings + (sweep?.findings ?? [])).first(where: { $0.id == id }) { return finding.needs }
        return variants.first { $0.claim?.id == id }.map { [$0.name] }
    }
}

/// The findings tests' one assertion: finding `id` of `experiment` reproduced in `report`.
///
/// - Passes only when the finding applies, was judged and reproduced, and no variant it reads
///   ended with an outcome its declaration forbids. The harness reports `reproduced` only when
///   the claim's mechanism was seen (`Verdict.init(symptom:mechanism:)`, `Claim.report`), so a
///   pass is a symptom shown with its cause; the assertion does not read the summary's prose
///   again for it.
/// - Throws `XCTSkip`, naming the variant, its outcome and its evidence, when the finding was
///   not judged because a variant it reads ended in one of the machine's outcomes
///   (`Outcome.machineOutcomes`: cpu-starved, resource-limited, out-of-memory,
///   killed-from-outside, suspended). Such a trial measured the machine, not the program: the
///   lab's correct answer is "not judged", and the test has nothing to assert either way. A
///   skip, never a pass, so that a machine that never lets the trial run never shows green;
///   never a failure, so that a loaded machine does not fail a finding the program did not break.
/// - Fails, with the finding's summary and the outcome and evidence of each variant it reads,
///   in every other case: `id` is not a finding of `experiment`; the report has no finding `id`
///   (a variant it reads did not run); it does not apply; a variant it reads ended forbidden; it
///   was not judged for another reason (its mechanism not seen, the run interrupted: nothing a
///   machine does by itself); it was judged and did not reproduce. The test then goes on, so
///   that its other assertions say more.
///
/// One assertion, because the suites' five copies answered one question five ways: one skipped
/// on a machine outcome, found by a prefix of the summary, where the others failed; one did not
/// check that the finding applied or was judged; one alone checked forbidden variants; three
/// read "mechanism" out of the summary.
public func assertReproduced(
    _ id: String, in report: ExperimentReport, of experiment: ExperimentDefinition,
    file: StaticString = #filePath, line: UInt = #line
) throws {
    switch FindingDecision.decide(id, in: report, of: experiment) {
    case .pass: return
    case .skip(let reason): throw XCTSkip(reason, file: file, line: line)
    case .fail(let message): XCTFail(message, file: file, line: line)
    }
}
