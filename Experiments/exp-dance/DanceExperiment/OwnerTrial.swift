import LabHarness

/// What every dance variant measures around its one owner, so a body keeps only the lesson: its
/// release (a `LifetimeTrial`: the owner's `deinit` calls `ownerDeinit`; `watch` the owner, mark
/// `endScope(of:)`, call `settle` or `awaitRelease` after the closing brace) and its reference
/// counts (`probe`); the body returns `record(...)`.
public final class OwnerTrial: LifetimeTrial {
    public let parameters: DanceParameters
    public let probe = CaptureProbe()

    public init(_ context: VariantContext, owner label: String) {
        parameters = context.parameters(DanceParameters.self)
        super.init(context, owner: label, grace: parameters.grace)
    }

    /// Tracks the owner (weakly) and takes its reference counts' baseline, read from the body's
    /// local as the later readings are (returning the owner from here adds a retain in -O builds).
    override public func watch(_ owner: AnyObject) {
        super.watch(owner)
        probe.begin(owner)
    }

    /// The reference counts as the mechanism of the owner's fate, seen when they explain it: a
    /// leak by a strong hold (that clearing the closure let go), a release by the closure holding
    /// `expected` (nothing, or one weak reference) when created and once stored.
    public func heldMechanism(_ what: String, releasedHolding expected: RefCounts = .zero) -> Evidence {
        guard let held = probe.onceStored else { return .notSeen("\(what)'s reference counts were not read") }
        guard released == true else {
            // Where the body cleared the closure, the release that followed confirms what held the owner.
            let afterBreak = metrics[DanceMetric.releaseAfterBreakS]
            let cleared = afterBreak.map { ", and clearing it released the \(label) \(seconds: $0) later" }
            let notCleared = releasedAfterBreak == false ? " and clearing it did not release it" : ""
            return .when(
                held.strong > 0 && releasedAfterBreak != false,
                "\(what) held \(held) once stored (reference counts)" + (cleared ?? ""),
                otherwise: "the \(label) stayed, but \(what) held \(held) once stored" + notCleared)
        }
        let created = probe.atCreation ?? expected
        return .when(
            held == expected && created == expected,
            "\(what) held \(held) when created and once stored (reference counts)",
            otherwise: "\(what) held \(created) when created and \(held) once stored, not \(expected)")
    }

    /// The record of a variant whose claim is what its stored closure holds (`heldMechanism`).
    public func record(heldBy what: String, releasedHolding expected: RefCounts = .zero) -> VariantRecord {
        let mechanism = heldMechanism(what, releasedHolding: expected)
        return record(outcome, mechanism: mechanism, evidence: "\(label) \(releaseSummary)")
    }

    /// The variant's record: the lifetime's metrics, the variant's own and the probe's readings.
    public func record(_ outcome: Outcome, mechanism: Evidence, evidence: String) -> VariantRecord {
        for reading in probe.readings {
            metrics[DanceMetric.capture(reading.moment, reading.count)] = reading.value.map(Double.init)
        }
        return VariantRecord(outcome: outcome, metrics: metrics, evidence: evidence, mechanism: mechanism)
    }
}
