import LabHarness

/// The one claim exp-dance judges across variants (the others are their variant's outcome, see
/// the `claim:` of each declaration): the same call site against two APIs. It rests on outcomes
/// and on reference-count changes (each variant's mechanism), never on how fast the machine was.
enum DanceVerdicts {
    static func hiddenAPICycle(_ inputs: FindingInputs) -> Verdict {
        let cycle = inputs[DanceVariant.hiddenAPICycle], fixed = inputs[DanceVariant.hiddenAPIFixed]
        let mechanism = Evidence.all(
            [("naming the screen", cycle), ("with the screen as parameter", fixed)].map { name, v in
                Evidence(seen: v.mechanism?.seen ?? false, "\(name): \(v.mechanism?.what ?? "not measured")")
            })
        let symptom = cycle.outcome == .leaked && fixed.outcome == .completed
        let naming = LifetimeTrial.releaseSummary(cycle.metrics), passed = LifetimeTrial.releaseSummary(fixed.metrics)
        return Verdict(
            symptom: symptom, mechanism: mechanism,
            "stored action naming the screen: screen \(naming); with the screen as parameter: screen \(passed)")
    }
}
