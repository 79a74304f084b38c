import LabHarness

/// The completion-handler provider behind `await` (`ChatLibrary.profiles(for:)`): the checked
/// continuation's checks are the only guard.
enum AsyncBridge {
    /// The runtime's warning for a continuation dropped without a resume; its trap message for a second.
    static let leakMarker = "leaked its continuation", doubleMarker = "more than once"

    /// Starts a task that awaits the profiles through `library`; the counter counts it going on.
    private static func startTask(_ context: VariantContext, _ library: ChatLibrary) -> ProgressCounter {
        let finished = ProgressCounter()
        context.step("app starts a task that awaits the profiles")
        Task.detached {
            context.step("task calls await library.profiles(for:)")
            let profiles = await library.profiles(for: Conversation.sample.userIDs)
            context.step("app gets \(profiles.count) profiles after await (the task continues)")
            finished.advance()
        }
        return finished
    }

    /// `async-bridge`: the app's queue resumes the task, which continues on the runtime's executor.
    static func bridge(_ context: VariantContext) -> VariantRecord {
        let library = context.library(.completionHandler(context.app().onAppQueue))
        let finished = startTask(context, library)
        guard context.wait(until: { finished.value > 0 }) else {
            return context.failed("the awaiting task did not finish", library)
        }
        var m = context.metrics(library, rendered: nil)
        m.set([
            CallbackMetric.taskFinished: 1, "await_s": context.interval("task calls await", "app gets"),
            CallbackMetric.resumeOnAppQueue: context.ran("app calls the handler", on: AppProfiles.queueLabel),
            CallbackMetric.continuedOnAppQueue: context.ran("app gets", on: AppProfiles.queueLabel),
        ])
        return VariantRecord(
            outcome: .completed, metrics: m,
            evidence:
                "resumed from \(context.place(of: "app calls the handler")); the task went on on \(context.place(of: "app gets"))"
        )
    }

    /// `async-leak`: the runtime's warning on stderr is captured, then the task is watched for the library's patience.
    static func leak(_ context: VariantContext) throws -> VariantRecord {
        let p = context.callbackParameters
        let library = context.library(.completionHandler(context.app().forgetting))
        let capture: StderrCapture
        do { capture = try StderrCapture() } catch {
            // At a process limit the forwarding process cannot be forked: the machine's, not the program's.
            guard let refused = MachineCheck.processCreationRefused("the process that copies stderr", error: error)
            else { throw error }
            return refused.apply(to: VariantRecord(outcome: .failed, evidence: "stderr could not be copied"))
        }
        let finished = startTask(context, library)
        let warning = capture.waitForLine(containing: leakMarker, within: p.deadline)
        if let warning {
            context.step(
                "runtime warns on stderr: \(leakMarker)", at: warning.at,
                place: ExecutionPlace(queue: "stderr", thread: "Swift runtime", isMainThread: false))
        }
        let watched = finished.wait(forAtLeast: 1, stallWindow: p.patience, budget: p.patience)
        capture.end()
        var m = context.metrics(library, rendered: nil)
        m.set([
            CallbackMetric.warningCaptured: warning == nil ? 0 : 1,
            CallbackMetric.taskFinished: watched.reached ? 1 : 0, "patience_s": p.patience,
        ])
        if let warning, let dropped = context.firstStep("app returns early") {
            m.set([
                CallbackMetric.warningAfterDropS: context.since(warning.at) - dropped.t,
                CallbackMetric.taskSuspendedForS: context.elapsed() - dropped.t,
            ])
        }
        let outcome: Outcome = watched.reached ? .completed : warning != nil ? .leaked : .stalled
        return VariantRecord(
            outcome: outcome, metrics: m,
            evidence: warning?.line.trimmingCharacters(in: .whitespaces) ?? "no leak warning on stderr")
    }

    /// `async-double`: if this function returns, the runtime did not catch the second `resume`.
    static func double(_ context: VariantContext) -> VariantRecord {
        let p = context.callbackParameters
        // Measure, then trap: after every step the harness holds the steps so far.
        let narrate: Narrate = { label in
            context.step(label)
            context.checkpoint(VariantRecord(outcome: .crashed, metrics: [CallbackMetric.latencyS: p.latency]))
        }
        let app = AppProfiles(latency: p.latency, narrate: narrate)
        let library = ChatLibrary(
            source: .completionHandler(app.twice(gap: p.secondCallGap)), patience: p.patience, narrate: narrate)
        let finished = startTask(context, library)
        _ = context.wait(until: { false })  // the trap, if it comes, ends the process in this wait
        var m = context.metrics(library, rendered: nil)
        m[CallbackMetric.taskFinished] = finished.value > 0 ? 1 : 0
        return VariantRecord(
            outcome: .completed, metrics: m, evidence: "the continuation was resumed twice and the process went on")
    }
}
