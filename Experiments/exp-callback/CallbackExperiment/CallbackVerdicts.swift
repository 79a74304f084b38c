import LabHarness

/// How each finding of exp-callback is judged from what its variant measured. Every
/// threshold is a ratio of the lookup's latency with a wide margin; a limit that a delay must
/// stay under also allows the worst stall a control thread in the same process saw (`stall`),
/// so a loaded machine does not flip them.
enum CallbackVerdicts {
    /// The worst delay of the variant's control thread, in seconds (0 when not measured): a
    /// stall that long can land on any one measured delay, so an upper limit allows it.
    static func stall(_ v: VariantReport) -> Seconds {
        (v.metrics[StallWatch.worstMetric] ?? 0) / 1000
    }

    /// "; the control was held up 120 ms at worst", when it was held up at all.
    static func stallNote(_ stall: Seconds) -> String {
        stall >= 0.005 ? "; a same-moment control was held up \(Format.seconds(stall)) at worst" : ""
    }

    static func syncReturnBlocksLibrary(_ inputs: FindingInputs) -> Verdict {
        let v = inputs[CallbackVariant.syncReturn]
        let latency = v.metrics[CallbackMetric.latencyS] ?? .nan
        let held = v.metrics[CallbackMetric.libraryHeldS] ?? 0
        let waited = v.metrics[CallbackMetric.incomingDelayS] ?? 0
        let onLibrary = v.metrics[CallbackMetric.lookupOnLibraryQueue] == 1
        let ok = v.outcome == .completed && onLibrary && held >= 0.9 * latency && waited >= 0.5 * latency
        return Verdict(ok, "the lookup ran on \(onLibrary ? ChatLibrary.queueLabel : "another queue") and held it \(Format.seconds(held)) of a \(Format.seconds(latency)) lookup (\(percent(held, latency))); a message that arrived meanwhile waited \(Format.seconds(waited))")
    }

    static func completionHandlerFreesLibrary(_ inputs: FindingInputs) -> Verdict {
        let v = inputs[CallbackVariant.completionHandler]
        let latency = v.metrics[CallbackMetric.latencyS] ?? .nan
        let held = v.metrics[CallbackMetric.libraryHeldS] ?? .infinity
        let waited = v.metrics[CallbackMetric.incomingDelayS] ?? .infinity
        let arrivedOnApp = v.metrics[CallbackMetric.handlerOnAppQueue] == 1
        let renderedOnLibrary = v.metrics[CallbackMetric.renderOnLibraryQueue] == 1
        let stall = CallbackVerdicts.stall(v)
        let ok = v.outcome == .completed && held < 0.2 * latency + stall && waited < 0.25 * latency + stall && arrivedOnApp && renderedOnLibrary
        return Verdict(ok, "the library's queue was held \(Format.seconds(held)) of a \(Format.seconds(latency)) lookup (\(percent(held, latency))\(CallbackVerdicts.stallNote(stall))); a message that arrived meanwhile waited \(Format.seconds(waited)); the handler came on \(arrivedOnApp ? AppProfiles.queueLabel : "another queue") and the library rendered on \(renderedOnLibrary ? ChatLibrary.queueLabel : "another queue")")
    }

    static func callbackRunsOnLibraryQueue(_ inputs: FindingInputs) -> Verdict {
        let v = inputs[CallbackVariant.callback]
        let fromMain = v.metrics[CallbackMetric.callerOnMainThread] == 1
        let onLibrary = v.metrics[CallbackMetric.callbackOnLibraryQueue] == 1
        let onMain = v.metrics[CallbackMetric.callbackOnMainThread] == 1
        let uiOnMain = v.metrics[CallbackMetric.uiOnMainThread] == 1
        let ok = v.outcome == .completed && fromMain && onLibrary && !onMain && uiOnMain
        return Verdict(ok, "asked from the main thread; the callback ran on \(onLibrary ? ChatLibrary.queueLabel : "another queue")\(onMain ? " on the main thread" : ", off the main thread"); the hop to the main queue took \(v.metrics[CallbackMetric.hopS].map(Format.seconds) ?? "—")")
    }

    static func delegateCompletionGatesWork(_ inputs: FindingInputs) -> Verdict {
        let v = inputs[CallbackVariant.delegateCompletion]
        let total = Double(Conversation.sample.messages.count)
        let allowed = v.metrics[CallbackMetric.allowMessages] ?? -1
        let cancelledMessages = v.metrics[CallbackMetric.cancelMessages] ?? -1
        let early = (v.metrics[CallbackMetric.allowMessagesBeforeDecision] ?? 1) + (v.metrics[CallbackMetric.cancelMessagesBeforeDecision] ?? 1)
        let cancelEnd = v.metrics[CallbackMetric.cancelEndAfterDecisionS] ?? .infinity
        let latency = v.metrics[CallbackMetric.latencyS] ?? 1
        let ok = v.outcome == .completed && allowed == total && v.metrics[CallbackMetric.allowFinished] == 1
            && cancelledMessages == 0 && v.metrics[CallbackMetric.cancelCancelled] == 1 && early == 0
            && cancelEnd < max(0.25, latency) + CallbackVerdicts.stall(v)
        return Verdict(ok, "allow: \(Format.count(allowed)) of \(Format.count(total)) messages after a \(seconds(v.metrics[CallbackMetric.allowDecisionAfterS])) decision; cancel: \(Format.count(cancelledMessages)) messages, ended \(seconds(cancelEnd)) after the decision\(CallbackVerdicts.stallNote(CallbackVerdicts.stall(v))); \(Format.count(early)) messages before any decision")
    }

    static func forgottenHandlerStalls(_ inputs: FindingInputs) -> Verdict {
        let v = inputs[CallbackVariant.forgottenHandler]
        let patience = v.metrics[CallbackMetric.patienceS] ?? .nan
        let detected = v.metrics[CallbackMetric.stallDetectedAfterS] ?? .infinity
        let calls = v.metrics[CallbackMetric.handlerCalls] ?? -1
        let stall = CallbackVerdicts.stall(v)
        let ok = v.outcome == .stalled && calls == 0 && detected >= patience * 0.99 && detected <= patience + 0.5 + stall
            && v.metrics[CallbackMetric.renderedIdsOnly] == 1
        return Verdict(ok, "\(Format.count(calls)) handler calls; the library reported the stall \(seconds(detected)) after handing the handler out (patience \(seconds(patience))\(CallbackVerdicts.stallNote(stall))) and rendered with user ids; outcome \(v.outcome)")
    }

    static func doubleCallDetected(_ inputs: FindingInputs) -> Verdict {
        let v = inputs[CallbackVariant.doubleCall]
        let calls = v.metrics[CallbackMetric.handlerCalls] ?? 0
        let ignored = v.metrics[CallbackMetric.handlerIgnored] ?? 0
        let renders = v.metrics[CallbackMetric.callbackCalls] ?? 0
        let ok = v.outcome == .completed && calls == 2 && ignored == 1 && renders == 1
        return Verdict(ok, "\(Format.count(calls)) handler calls, \(Format.count(ignored)) ignored and reported (\(seconds(v.metrics[CallbackMetric.secondCallAfterS])) apart); the conversation was rendered \(Format.count(renders)) time\(renders == 1 ? "" : "s")")
    }

    static func continuationMisuseDetected(_ inputs: FindingInputs) -> Verdict {
        let leak = inputs[CallbackVariant.asyncLeak]
        let double = inputs[CallbackVariant.asyncDouble]
        let warned = leak.metrics[CallbackMetric.warningCaptured] == 1 && (leak.evidence ?? "").contains("leaked its continuation")
        let stuck = leak.metrics[CallbackMetric.taskFinished] == 0
        let trapped = double.outcome == .crashed && (double.evidence ?? "").contains("more than once")
        let ok = leak.outcome == .leaked && warned && stuck && trapped
        let leakText = warned ? "leak warned \(seconds(leak.metrics[CallbackMetric.warningAfterDropS])) after the handler was dropped, task still suspended after \(seconds(leak.metrics[CallbackMetric.taskSuspendedForS]))" : "no leak warning captured (\(leak.outcome))"
        let doubleText = trapped ? "double resume \(double.outcome): \(misuseMessage(double.evidence ?? ""))" : "double resume ended \(double.outcome)"
        return Verdict(ok, "\(leakText); \(doubleText)")
    }
}

private func percent(_ part: Double, _ whole: Double) -> String {
    guard whole > 0, part.isFinite else { return "—" }
    let ratio = part / whole
    if ratio < 0.0001 { return "under 0.01%" }
    return Format.decimal(100 * ratio, places: ratio < 0.01 ? 2 : 0) + "%"
}

private func seconds(_ value: Double?) -> String { value.map(Format.seconds) ?? "—" }
