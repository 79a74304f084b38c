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

    // MARK: URLSession on the loopback server

    /// Where the first event whose label starts with `label` ran (`queue · thread`), from the
    /// variant's recorded steps.
    static func placeOf(_ label: String, in v: VariantReport) -> String {
        v.events?.first { $0.label.hasPrefix(label) }?.thread ?? "nowhere (it did not happen)"
    }

    static func urlSessionCompletionOnDelegateQueue(_ inputs: FindingInputs) -> Verdict {
        let v = inputs[CallbackVariant.urlsessionQueues]
        let m = v.metrics
        let fromMain = m[CallbackMetric.callerOnMainThread] == 1
        var ok = v.outcome == .completed && fromMain && m[CallbackMetric.asyncResumedOnMainThread] == 1
        var parts: [String] = []
        for (key, name) in [("own", "session's own queue"), ("given", "given queue app.delegate")] {
            let onQueue = m["\(key).handler.on_delegate_queue"] == 1, onMain = m["\(key).handler.on_main_thread"] == 1
            let hopOnMain = m["\(key).hop.on_main_thread"] == 1
            ok = ok && onQueue && !onMain && hopOnMain
            parts.append("\(name): the handler ran \(onQueue ? "on the delegate queue" : "off the delegate queue")\(onMain ? " on the main thread" : ", off the main thread") (\(placeOf("\(key) · completion handler", in: v))), the hop to main took \(seconds(m["\(key).hop_s"]))\(hopOnMain ? "" : " and did not land on the main thread")")
        }
        let asyncText = m[CallbackMetric.asyncResumedOnMainThread] == 1 ? "on the main thread" : "off the main thread"
        return Verdict(ok, "asked from \(fromMain ? "the main thread" : "a background thread"); \(parts.joined(separator: "; ")); async data(from:) resumed its @MainActor caller \(asyncText)")
    }

    static func urlSessionSyncWrapperDeadlocksMain(_ inputs: FindingInputs) -> Verdict {
        let main = inputs[CallbackVariant.urlsessionSyncMain], background = inputs[CallbackVariant.urlsessionSyncBackground]
        // The evidence of a deadlock, not merely a slow wrapper: the whole response had arrived
        // (step 2) and the main thread's stack shows it waiting in the wrapper's semaphore.
        let served = (main.metrics[CallbackMetric.steps] ?? 0) >= 2
        let clause = main.whereClause(in: "dispatch_semaphore_wait", calledFrom: "fetchSynchronously")
        let stacksAgree = main.stacks == nil || clause != nil
        let mainText: String
        if main.outcome == .deadlock {
            let arrived = main.metrics[CallbackMetric.serverCompletedAfterS].map { "the server sent the whole response \(Format.seconds($0)) after the resume, " } ?? (served ? "the server sent the whole response, " : "the server had not sent the whole response, ")
            mainText = "main queue as delegate queue: \(arrived)then no step for \(Format.seconds(CallbackParameters.syncWrapperStallWindow)): deadlock (\(clause ?? (main.stacks == nil ? "no stacks taken" : "the stacks do not show the wait")))"
        } else {
            mainText = "main queue as delegate queue: \(main.outcome) (\(main.evidence ?? ""))"
        }
        let bgOK = background.outcome == .completed && background.metrics[CallbackMetric.wrapperBytes] == Double(URLSessionSyncWrapper.response.body.count)
        let bgText = bgOK ? "background delegate queue: the wrapper returned \(Format.count(background.metrics[CallbackMetric.wrapperBytes] ?? 0)) bytes after \(seconds(background.metrics[CallbackMetric.wrapperReturnedAfterS]))"
            : "background delegate queue: \(background.outcome) (\(background.evidence ?? ""))"
        return Verdict(main.outcome == .deadlock && served && stacksAgree && bgOK, "\(mainText); \(bgText)")
    }

    /// `never: 100,000 of 100,000 bytes, completed without error at 0.51 s`, for each answer.
    static func dispositionLines(_ v: VariantReport) -> String {
        let full = v.metrics[CallbackMetric.bodyBytes] ?? 0
        return DispositionProbe.Answer.allCases.map { a in
            let m = v.metrics, key = a.rawValue
            let name = a == .never ? "never answered" : ".\(key)"
            let end: String
            if m["\(key).ended"] == 1 {
                let code = m["\(key).error_code"] ?? 0
                end = "\(code == 0 ? "completed without error" : "ended with error \(Format.count(code))") at \(seconds(m["\(key).ended_after_s"]))"
            } else {
                end = "not ended after \(seconds(m[CallbackMetric.windowS]))"
            }
            return "\(name): \(Format.count(m["\(key).bytes"] ?? 0)) of \(Format.count(full)) bytes, \(end)"
        }.joined(separator: "; ")
    }

    static func linuxURLSessionIgnoresDisposition(_ inputs: FindingInputs) -> Verdict {
        let v = inputs[CallbackVariant.urlsessionDisposition]
        let m = v.metrics
        let full = m[CallbackMetric.bodyBytes] ?? -1
        let scheduled = m[CallbackMetric.scheduledS] ?? .nan
        let stall = CallbackVerdicts.stall(v)
        let everyAnswerIgnored = DispositionProbe.Answer.allCases.allSatisfy { a in
            let name: String = a.rawValue
            let asked: Double? = m[name + ".asked"], bytes: Double? = m[name + ".bytes"]
            let ended: Double? = m[name + ".ended"], code: Double? = m[name + ".error_code"]
            return asked == 1 && bytes == full && ended == 1 && code == 0
        }
        // "At the same time": the three tasks ran side by side on the same pacing, so each ends
        // within half the response's length of the allowed one (plus the worst same-moment stall).
        let allowEnd = m["allow.ended_after_s"] ?? .nan
        let together = [DispositionProbe.Answer.never, .cancel].allSatisfy { a in
            guard let end = m["\(a.rawValue).ended_after_s"] else { return false }
            return abs(end - allowEnd) <= 0.5 * scheduled + stall
        }
        return Verdict(v.outcome == .dispositionIgnored && everyAnswerIgnored && together,
                       "\(dispositionLines(v)) (the server paced the body over \(seconds(scheduled))\(CallbackVerdicts.stallNote(stall))); swift-corelibs-foundation's HTTPURLProtocol does not pause libcurl's transfer for the answer, and the handler it hands the delegate discards the disposition")
    }

    static func urlSessionDispositionGatesTask(_ inputs: FindingInputs) -> Verdict {
        let v = inputs[CallbackVariant.urlsessionDisposition]
        let m = v.metrics
        let full = m[CallbackMetric.bodyBytes] ?? -1
        let allowed = m["allow.bytes"] == full && m["allow.ended"] == 1 && m["allow.error_code"] == 0
        let waited = m["never.asked"] == 1 && m["never.bytes"] == 0 && m["never.ended"] == 0
        let cancelled = m["cancel.asked"] == 1 && m["cancel.bytes"] == 0 && m["cancel.ended"] == 1 && m["cancel.error_code"] != 0
        return Verdict(v.outcome == .completed && allowed && waited && cancelled, dispositionLines(v))
    }
}

private func percent(_ part: Double, _ whole: Double) -> String {
    guard whole > 0, part.isFinite else { return "—" }
    let ratio = part / whole
    if ratio < 0.0001 { return "under 0.01%" }
    return Format.decimal(100 * ratio, places: ratio < 0.01 ? 2 : 0) + "%"
}

private func seconds(_ value: Double?) -> String { value.map(Format.seconds) ?? "—" }
