import LabHarness

/// The completion-handler provider behind `async`/`await` (`ChatLibrary.profiles(for:)`,
/// built on `withCheckedContinuation`). Three apps: one that calls the handler once
/// (`async-bridge`), one that forgets it (`async-leak`), one that calls it twice
/// (`async-double`). The continuation's run-time checks are the only guard.
enum AsyncBridge {
    /// `async-bridge`: the task suspends at `await`, the app's queue resumes it, and the task
    /// continues on the concurrency runtime's executor, not on the app's queue.
    static func bridge(_ context: VariantContext) -> VariantRecord {
        let s = Scenario(context)
        let library = s.library(.completionHandler(s.app.onAppQueue))
        let finished = ProgressCounter()
        s.steps.record("app starts a task that awaits the profiles")
        Task.detached { [steps = s.steps] in
            steps.record("task calls await library.profiles(for:)")
            let profiles = await library.profiles(for: Conversation.sample.userIDs)
            steps.record("app gets \(profiles.count) profiles after await (the task continues)")
            finished.advance()
        }
        guard s.wait(until: { finished.value > 0 }) else {
            return s.failed("the awaiting task did not finish", library)
        }
        var m = s.metrics(library, rendered: nil)
        m[CallbackMetric.taskFinished] = 1
        let resumed = s.steps.first("app calls the handler")
        let continued = s.steps.first("app gets")
        if let started = s.steps.first("task calls await"), let continued { m[CallbackMetric.awaitS] = continued.t - started.t }
        m[CallbackMetric.resumeOnAppQueue] = resumed?.place.queue == AppProfiles.queueLabel ? 1 : 0
        m[CallbackMetric.continuedOnAppQueue] = continued?.place.queue == AppProfiles.queueLabel ? 1 : 0
        return s.record(.completed, m,
                        "resumed from \(s.place("app calls the handler")); the task went on on \(s.place("app gets"))")
    }

    /// `async-leak`: the handler is dropped without a call. The runtime prints its "leaked its
    /// continuation" warning on stderr (captured here) and the task never continues.
    static func leak(_ context: VariantContext) throws -> VariantRecord {
        let s = Scenario(context)
        let library = s.library(.completionHandler(s.app.forgetting))
        let capture = try StderrCapture()
        let taskProgress = ProgressCounter()
        s.steps.record("app starts a task that awaits the profiles")
        Task.detached { [steps = s.steps] in
            steps.record("task calls await library.profiles(for:)")
            _ = await library.profiles(for: Conversation.sample.userIDs)
            steps.record("app gets the profiles after await (the task continues)")
            taskProgress.advance()
        }
        let marker = "leaked its continuation"
        let warning = capture.waitForLine(containing: marker, within: s.parameters.deadline)
        if let warning {
            s.steps.record("runtime warns on stderr: \(marker)", at: warning.at,
                           place: ExecutionPlace(queue: "stderr", thread: "Swift runtime", isMainThread: false))
        }
        // Then watch the task for the library's patience: does it ever continue?
        let watched = taskProgress.wait(forAtLeast: 1, stallWindow: s.parameters.patience, budget: s.parameters.patience)
        capture.end()

        var m = s.metrics(library, rendered: nil)
        m[CallbackMetric.warningCaptured] = warning == nil ? 0 : 1
        m[CallbackMetric.taskFinished] = watched.reached ? 1 : 0
        m[CallbackMetric.patienceS] = s.parameters.patience
        if let warning, let dropped = s.steps.first("app returns early") {
            m[CallbackMetric.warningAfterDropS] = warning.at - s.steps.startedAt - dropped.t
            m[CallbackMetric.taskSuspendedForS] = MonotonicClock.now() - s.steps.startedAt - dropped.t
        }
        let outcome: Outcome
        switch (warning != nil, watched.reached) {
        case (_, true): outcome = .completed
        case (true, false): outcome = .leaked
        case (false, false): outcome = .stalled
        }
        let line = warning?.line.trimmingCharacters(in: .whitespaces) ?? "no leak warning on stderr"
        return s.record(outcome, m, line)
    }

    /// `async-double`: the handler is called twice; the second `resume` traps the process.
    /// If this function returns, the runtime did not catch it.
    static func double(_ context: VariantContext) -> VariantRecord {
        let s = Scenario(context)
        let library = s.library(.completionHandler(s.app.twice(gap: s.parameters.secondCallGap)))
        let finished = ProgressCounter()
        // Measure, then trap: after every step the harness holds the steps so far, so the
        // report shows what led to the trap.
        s.steps.onEachStep { [s] in
            context.checkpoint(VariantRecord(outcome: .crashed, metrics: [CallbackMetric.latencyS: s.parameters.latency], events: s.steps.events))
        }
        s.steps.record("app starts a task that awaits the profiles")
        Task.detached { [steps = s.steps] in
            steps.record("task calls await library.profiles(for:)")
            _ = await library.profiles(for: Conversation.sample.userIDs)
            steps.record("app gets the profiles after await (the task continues)")
            finished.advance()
        }
        // The trap, if it comes, ends the process during this wait.
        _ = s.wait(until: { false })
        var m = s.metrics(library, rendered: nil)
        m[CallbackMetric.taskFinished] = finished.value > 0 ? 1 : 0
        return s.record(.completed, m, "the continuation was resumed twice and the process went on")
    }
}
