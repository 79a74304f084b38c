import LabHarness

/// How each finding is judged from what its variants measured. Every verdict rests on
/// orderings and on counts (reference-count changes, alive or not at a given moment), never on
/// how fast a loaded machine happened to be; the times are quoted, not judged, except against
/// the delay they must exceed, and a gap that must stay short is judged without what a
/// same-moment control thread lost to the machine.
enum DanceVerdicts {
    static func strongCaptureLeaks(_ inputs: FindingInputs) -> Verdict {
        let v = inputs[DanceVariant.strongCapture]
        let stored = CapturedReference.delta(v.metrics, moment: "stored")
        let reproduced = v.outcome == .leaked && v.metrics[DanceMetric.released] == 0 && (stored?.strong ?? 0) >= 1
        return Verdict(reproduced, "ticker \(aliveOrReleased(v)); its handler held \(captureStory(v))" + cycleBreak(v, "onTick"))
    }

    static func weakStrongReleases(_ inputs: FindingInputs) -> Verdict {
        let v = inputs[DanceVariant.weakStrong]
        let stored = CapturedReference.delta(v.metrics, moment: "stored")
        let reproduced = v.outcome == .completed && v.metrics[DanceMetric.aliveAtScopeExit] == 0
            && v.metrics[DanceMetric.delayedFoundNil] == 1 && stored?.strong == 0
        var retry = "the delayed retry never ran"
        if let found = v.metrics[DanceMetric.delayedFoundNil] {
            let when = v.metrics[DanceMetric.delayedRanAfterScopeS].map { " \(Format.seconds($0)) after the scope ended" } ?? ""
            retry = "the delayed retry ran\(when) and " + (found == 1 ? "found nil" : "found the uploader alive")
        }
        return Verdict(reproduced, "uploader \(aliveOrReleased(v)); its closures held \(captureStory(v)); \(retry)")
    }

    static func heapStackReleases(_ inputs: FindingInputs) -> Verdict {
        let v = inputs[DanceVariant.heapStack]
        let created = CapturedReference.delta(v.metrics, moment: "created")
        let stored = CapturedReference.delta(v.metrics, moment: "stored")
        let reproduced = v.outcome == .completed && v.metrics[DanceMetric.aliveAtScopeExit] == 0
            && created == .zero && stored == .zero
        return Verdict(reproduced, "thermostat \(aliveOrReleased(v)); its handler held \(captureStory(v))")
    }

    static func heapStackDelayedOrder(_ inputs: FindingInputs) -> Verdict {
        let v = inputs[DanceVariant.heapStackDelayed]
        let delay = inputs.options.double("delay")
        let events = v.events ?? []
        let order = events.map(\.label).filter(HeapStackDelayed.articleOrder.contains)
        let times = events.filter { HeapStackDelayed.articleOrder.contains($0.label) }.map(\.t)
        let gap = v.metrics[DanceMetric.completion1AfterCompletion2S]
        let afterCompletion1 = v.metrics[DanceMetric.deinitAfterCompletion1S]
        let machineDelay = v.metrics[DanceMetric.deinitAfterCompletion1ControlDelayS] ?? 0
        let pending = CapturedReference.delta(v.metrics, moment: "pending")
        let stored = CapturedReference.delta(v.metrics, moment: "stored")
        // dispatch_after never fires early; 2 % covers the two clocks being read a moment apart.
        let waited = (gap ?? 0) >= 0.98 * delay
        let reproduced = v.outcome == .completed && order == HeapStackDelayed.articleOrder && times == times.sorted()
            && waited && (afterCompletion1 ?? .infinity) - machineDelay < delay / 2
            && v.metrics[DanceMetric.aliveAtScopeExit] == 1 && v.metrics[DanceMetric.aliveMidDelay] == 1
            && (pending?.strong ?? 0) >= 1 && stored == .zero
        var summary = "order " + (order.isEmpty ? "(no events)" : order.joined(separator: " → "))
        if let gap { summary += "; completion1 \(Format.seconds(gap)) after completion2 (delay \(Format.seconds(delay)))" }
        if let afterCompletion1 {
            summary += ", deinit \(Format.seconds(afterCompletion1)) after completion1"
            if machineDelay >= 0.005 { summary += " (\(Format.seconds(machineDelay)) of it a stall a same-moment control saw too)" }
        }
        summary += "; foo alive at scope exit: \(yesNo(v.metrics[DanceMetric.aliveAtScopeExit])), half way through the delay: \(yesNo(v.metrics[DanceMetric.aliveMidDelay]))"
        summary += "; the pending block held \(pending?.description ?? "?"), the stored completions \(stored.map(\.description) ?? "?")"
        return Verdict(reproduced, summary)
    }

    static func hiddenAPICycle(_ inputs: FindingInputs) -> Verdict {
        let cycle = inputs[DanceVariant.hiddenAPICycle], fixed = inputs[DanceVariant.hiddenAPIFixed]
        let cycleHeld = CapturedReference.delta(cycle.metrics, moment: "stored")
        let fixedHeld = CapturedReference.delta(fixed.metrics, moment: "stored")
        let reproduced = cycle.outcome == .leaked && (cycleHeld?.strong ?? 0) >= 1
            && fixed.outcome == .completed && fixed.metrics[DanceMetric.aliveAtScopeExit] == 0 && fixedHeld == .zero
        return Verdict(reproduced, "stored action naming the screen: \(captureStory(cycle)), screen \(aliveOrReleased(cycle))"
                       + cycleBreak(cycle, "the action") + "; with the screen as parameter: \(captureStory(fixed)), screen \(aliveOrReleased(fixed))")
    }

    static func unownedTraps(_ inputs: FindingInputs) -> Verdict {
        let v = inputs[DanceVariant.unownedAfterRelease]
        let stored = CapturedReference.delta(v.metrics, moment: "stored")
        let message = v.evidence.map { String($0.split(separator: ";").first ?? "") } ?? ""
        let reproduced = v.outcome == .crashed && message.contains("unowned reference") && v.metrics[DanceMetric.released] == 1
            && (stored?.unowned ?? 0) >= 1 && stored?.strong == 0
        let signal = v.metrics[DanceMetric.signal].map { " (signal \(Format.count($0)))" } ?? ""
        return Verdict(reproduced, "\(v.outcome)\(signal): \(message.isEmpty ? "no runtime message" : message); "
                       + "the handler held \(captureStory(v)); badge \(aliveOrReleased(v)) before the bus posted")
    }

    // MARK: - Phrases with the figures

    /// "released 9 µs after its scope ended" or "still alive 500 ms after its scope ended".
    static func aliveOrReleased(_ v: VariantReport) -> String {
        switch v.metrics[DanceMetric.released] {
        case 1?: return "released \(v.metrics[DanceMetric.releaseAfterScopeS].map(Format.seconds) ?? "?") after its scope ended"
        case 0?: return "still alive \(v.metrics[DanceMetric.graceS].map(Format.seconds) ?? "?") after its scope ended"
        default: return "release not measured"
        }
    }

    /// "+1 strong when created, +1 strong once stored".
    static func captureStory(_ v: VariantReport) -> String {
        let created = CapturedReference.delta(v.metrics, moment: "created")
        let stored = CapturedReference.delta(v.metrics, moment: "stored")
        guard created != nil || stored != nil else { return "(not measured)" }
        return "\(created.map(\.description) ?? "?") when created, \(stored.map(\.description) ?? "?") once stored"
    }

    static func cycleBreak(_ v: VariantReport, _ what: String) -> String {
        guard let released = v.metrics[DanceMetric.releasedAfterBreak] else { return "" }
        guard released == 1 else { return "; clearing \(what) did not release it" }
        return "; clearing \(what) released it \(v.metrics[DanceMetric.releaseAfterBreakS].map(Format.seconds) ?? "?") later"
    }

    static func yesNo(_ flag: Double?) -> String {
        switch flag { case 1?: "yes"; case 0?: "no"; default: "?" }
    }
}
