import LabHarness

/// The figures exp-callback's claims are judged against, each named once: ratios of the lookup's
/// latency (or the response's pacing) with wide margins; a limit a delay must stay under also
/// allows what a same-moment control lost to the machine meanwhile.
enum CallbackThreshold {
    /// sync-return holds the library's queue at least `heldWhole`; completion-handler under
    /// `heldFree`, and a message meanwhile waits under `waitedFree`.
    static let heldWhole = Threshold("held at least", 0.9, "× the lookup")
    static let heldFree = Threshold("held under", 0.2, "× the lookup")
    static let waitedFree = Threshold("message waited under", 0.25, "× the lookup")
    /// delegate-completion: a cancelled sync ends this soon after the decision (or the lookup's length).
    static let cancelPrompt = Threshold("cancel ends within", 0.25, "s")
    /// forgotten-handler: the stall is reported not before this share of the patience, and at
    /// most `detectedWithin` after it.
    static let notBeforePatience = Threshold("reported not before", 0.99, "× the patience")
    static let detectedWithin = Threshold("reported within", 0.5, "s")
    /// linux-urlsession-ignores-disposition: each task ends this close to the allowed one.
    static let together = Threshold("ends apart at most", 0.5, "× the response's pacing")
}

/// The findings that compare variants or read one two ways by platform; the claims of single
/// variants are their outcome rules (Variants/).
enum CallbackVerdicts {
    static func continuationMisuseDetected(_ inputs: FindingInputs) -> Verdict {
        let leak = inputs[CallbackVariant.asyncLeak], double = inputs[CallbackVariant.asyncDouble]
        let warned = leak[CallbackMetric.warningCaptured] == 1 && (leak.evidence ?? "").contains(AsyncBridge.leakMarker)
        let trapped = (double.evidence ?? "").contains(AsyncBridge.doubleMarker)
        let stuck = leak[CallbackMetric.taskFinished] == 0
        let warnedAfter = seconds(leak[CallbackMetric.warningAfterDropS])
        let task = stuck ? "still suspended" : "went on", suspended = seconds(leak[CallbackMetric.taskSuspendedForS])
        let leakText =
            warned
            ? "leak warned \(warnedAfter) after the handler was dropped, task \(task) after \(suspended)"
            : "no leak warning captured (\(leak.outcome))"
        let message = RuntimeMessage.continuationMisuse(in: double.evidence ?? "", endingWith: AsyncBridge.doubleMarker)
        let doubleText = "double resume \(double.outcome)" + (trapped ? ": \(message)" : "")
        return Verdict(
            symptom: leak.outcome == .leaked && warned && stuck && double.outcome == .crashed && trapped,
            mechanism: misuseMechanism(leak: leak, warned: warned, double: double, trapped: trapped),
            "\(leakText); \(doubleText)")
    }

    /// The mechanism, seen whichever way the claim goes: each misuse was made and its result
    /// watched. The leak: the runtime's warning, or the handler seen dropped and stderr watched
    /// to the end of the trial without one. The double resume: the runtime's trap message, or
    /// the second call seen and the process going on. Whether the runtime caught each is the
    /// symptom, so a runtime that lets a misuse pass refutes the claim instead of leaving it
    /// unjudged; a trial that could not copy stderr, or crashed without the runtime's message,
    /// saw neither.
    static func misuseMechanism(leak: VariantReport, warned: Bool, double: VariantReport, trapped: Bool) -> Evidence {
        let dropped = leak.events?.contains { $0.label.hasPrefix("app returns early") } ?? false
        let calledAgain = double.events?.contains { $0.label.hasPrefix("app calls the handler again") } ?? false
        let leakPart: Evidence =
            warned
            ? .seen("the runtime's leak warning seen on stderr")
            : dropped && [.stalled, .completed].contains(leak.outcome)
                ? .seen("the handler was dropped, and stderr was watched to the trial's end with no warning")
                : .notSeen("no leak warning from the runtime was seen on stderr, nor the handler dropped")
        let doublePart: Evidence =
            trapped
            ? .seen("the runtime's double-resume trap message seen")
            : calledAgain && double.outcome == .completed
                ? .seen("the handler was called a second time, and the process went on")
                : .notSeen("no double-resume message from the runtime was seen, nor the second call")
        return .all([leakPart, doublePart])
    }

    static func urlSessionSyncWrapperDeadlocksMain(_ inputs: FindingInputs) -> Verdict {
        let main = inputs[CallbackVariant.urlsessionSyncMain],
            background = inputs[CallbackVariant.urlsessionSyncBackground]
        // A deadlock, not a slow wrapper: the whole response had arrived, and the main thread was
        // seen in the semaphore wait (by its stack, else by the wrapper's own counts).
        let served = main[CallbackMetric.serverCompletedAfterS]
        let clause = main.whereClause(in: "dispatch_semaphore_wait", calledFrom: "fetchSynchronously")
        let counted = main[CallbackMetric.wrapperWaiting] == 1 && main[CallbackMetric.wrapperHandlerCalls] == 0
        // Stacks that could not name the wait (none here, or naming ran out of time) say nothing.
        let told = (main.stacks ?? []).canTell(in: "dispatch_semaphore_wait", calledFrom: "fetchSynchronously")
        let waiting: Evidence =
            if let clause { .seen("stacks: \(clause)") } else if !told, counted {
                .seen(
                    "counts: the main thread was in the semaphore wait and the handler had not run 0.2 s after the response arrived"
                )
            } else {
                .notSeen(
                    !told
                        ? "no stacks that name the wait, and the wrapper's counts do not show it"
                        : "the stacks do not show the main thread in the semaphore wait")
            }
        let body = Double(URLSessionSyncWrapper.response.body.count)
        let mechanism: Evidence
        if main.outcome == .completed {
            // The wrapper came back: that refutes the claim when it ran as the claim says (waiting
            // on the main thread, the main queue its session's delegate queue) and got the whole
            // response, its handler run while the main thread waited.
            let asClaimed = main["caller.on_main_thread"] == 1 && main["delegate_queue.is_main"] == 1
            mechanism = .when(
                asClaimed && main[CallbackMetric.wrapperBytes] == body,
                "the wrapper waited on the main thread with the main queue as its delegate queue, and returned all "
                    + "\(Format.count(body)) bytes",
                otherwise: "the wrapper returned, but not waiting on the main thread for the main queue's handler")
        } else {
            mechanism = .all([
                .when(
                    served != nil, "the server sent the whole response \(seconds(served)) after the resume",
                    otherwise: "the server had not sent the whole response"), waiting,
            ])
        }
        let bgOK =
            background.outcome == .completed
            && background[CallbackMetric.wrapperBytes] == body
        let bytes = Format.count(background[CallbackMetric.wrapperBytes] ?? 0)
        let returnedAfter = seconds(background[CallbackMetric.wrapperReturnedAfterS])
        let bgText =
            bgOK
            ? "the wrapper returned \(bytes) bytes after \(returnedAfter)"
            : "\(background.outcome) (\(background.evidence ?? ""))"
        return Verdict(
            symptom: main.outcome == .deadlock && bgOK, mechanism: mechanism,
            "main queue as delegate queue: \(main.outcome); background delegate queue: \(bgText)")
    }

    /// `never: 100,000 of 100,000 bytes, completed without error at 0.51 s`, for each answer.
    static func dispositionLines(_ v: Metrics) -> String {
        let full = v[CallbackMetric.bodyBytes] ?? 0
        return URLSessionDisposition.Answer.allCases.map { a in
            let key = a.rawValue, name = a == .never ? "never answered" : ".\(key)",
                code = v[CallbackMetric.of(key, .errorCode)] ?? 0
            let how = code == 0 ? "completed without error" : "ended with error \(Format.count(code))"
            let window = seconds(v[CallbackMetric.windowS]), at = seconds(v[CallbackMetric.of(key, .endedAfterS)])
            let end = v[CallbackMetric.of(key, .ended)] != 1 ? "not ended after \(window)" : "\(how) at \(at)"
            let bytes = Format.count(v[CallbackMetric.of(key, .bytes)] ?? 0)
            return "\(name): \(bytes) of \(Format.count(full)) bytes, \(end)"
        }.joined(separator: "; ")
    }

    /// The mechanism both disposition claims need: every task's delegate was handed the disposition handler.
    static func dispositionAsked(_ v: VariantReport) -> Evidence {
        let asked = URLSessionDisposition.Answer.allCases.filter { v[CallbackMetric.of($0.rawValue, .asked)] == 1 }
        return .when(
            asked.count == URLSessionDisposition.Answer.allCases.count,
            "each of the 3 delegates was asked for a disposition and answered .allow, never or .cancel",
            otherwise: "only \(asked.count) of 3 delegates were asked for a disposition")
    }

    static func linuxURLSessionIgnoresDisposition(_ inputs: FindingInputs) -> Verdict {
        let v = inputs[CallbackVariant.urlsessionDisposition]
        let scheduled = v[CallbackMetric.scheduledS] ?? .nan, stall = (v[Metrics.controlStallMax] ?? 0) / 1000
        // The tasks ran side by side on the same pacing: each ends near the allowed one.
        let allowEnd = v[CallbackMetric.of("allow", .endedAfterS)] ?? .nan
        let together = [URLSessionDisposition.Answer.never, .cancel].allSatisfy { a in
            guard let end = v[CallbackMetric.of(a.rawValue, .endedAfterS)] else { return false }
            return abs(end - allowEnd) <= CallbackThreshold.together.value * scheduled + stall
        }
        return Verdict(
            symptom: v.outcome == .dispositionIgnored && together, mechanism: dispositionAsked(v),
            "\(dispositionLines(v.metrics)) (the server paced the body over \(seconds(scheduled))\(Format.stallNote(stall))); swift-corelibs-foundation's HTTPURLProtocol does not pause libcurl's transfer for the answer, and the handler it hands the delegate discards the disposition"
        )
    }

    static func urlSessionDispositionGatesTask(_ inputs: FindingInputs) -> Verdict {
        let v = inputs[CallbackVariant.urlsessionDisposition]  // its `.completed` is the gating
        return Verdict(symptom: v.outcome == .completed, mechanism: dispositionAsked(v), dispositionLines(v.metrics))
    }
}

private func seconds(_ value: Double?) -> String { value.map(Format.seconds) ?? "—" }
