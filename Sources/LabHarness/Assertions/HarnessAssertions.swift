import Foundation
import Synchronization

/// The harness's assertions, independent of any test framework: each one measures, and on a
/// failure reports once through its `AssertionCall`. `LabHarnessXCTest` and `LabHarnessTesting`
/// wrap these under the same names; call them directly only to build a wrapper of your own.
///
/// Every wait here keeps the main queue draining when it runs on the main thread (see
/// `MainQueueFriendlyWait`), and async forms suspend instead of blocking.
public enum HarnessAssertions {
    static let label = "object"

    // MARK: Release

    /// The object `make` returns must be released within `timeout` once `make`'s references are
    /// gone. Returns the seconds it took, `nil` on failure.
    ///
    /// `make` runs inside an autorelease pool of the assertion's own, drained before the wait:
    /// on Darwin an object that Objective-C code autoreleased would otherwise stay in the test
    /// method's pool until the method returns, and read as a leak here.
    public static func released<T: AnyObject>(
        within timeout: Seconds, _ call: AssertionCall, _ make: () -> T
    ) -> Seconds? {
        let tracker = ReleaseTracker()
        HostPlatform.withAutoreleasePool {
            let object = make()
            tracker.track(object, label)
        }
        tracker.markScopeEnd(label)
        return releaseVerdict(tracker, T.self, timeout: timeout, when: afterMake, call)
    }

    /// `released(within:_:_:)` for an object made by async code; waits without blocking.
    /// It runs on the caller's actor (`isolation`), so in a `@MainActor` test `make` may build
    /// main-actor objects, and each poll of the wait suspends, leaving the main actor free for
    /// the tasks the object scheduled there.
    ///
    /// No autorelease pool of its own: on Darwin the concurrency runtime runs every job inside
    /// one and drains it when the job ends (`runJobInEstablishedExecutorContext`, swiftlang/swift
    /// `stdlib/public/Concurrency/Actor.cpp`), and the wait's first suspension ends the job that
    /// ran `make`, so what `make` autoreleased is let go before the wait's second check.
    public static func released<T: AnyObject>(
        within timeout: Seconds, _ call: AssertionCall,
        isolation: isolated (any Actor)? = #isolation,
        _ make: () async -> T
    ) async -> Seconds? {
        let tracker = ReleaseTracker()
        do {
            let object = await make()
            tracker.track(object, label)
        }
        tracker.markScopeEnd(label)
        return await releaseVerdict(tracker, T.self, timeout: timeout, when: afterMake, call)
    }

    /// `object` must be released within `timeout` after this sets it to `nil`.
    public static func released<T: AnyObject>(
        _ object: inout T?, within timeout: Seconds, _ call: AssertionCall
    ) -> Seconds? {
        guard let tracker = trackDropping(&object) else { return 0 }
        return releaseVerdict(tracker, T.self, timeout: timeout, when: afterDrop, call)
    }

    /// `released(_:within:_:)` without blocking: it runs on the caller's actor (`isolation`) and
    /// each poll of the wait suspends, so in a `@MainActor` test an object whose last owner is
    /// a main-actor task or a main-queue block is seen going. The synchronous form holds the
    /// main actor for the whole wait there, and reports such an object as a leak.
    public static func released<T: AnyObject>(
        _ object: inout T?, within timeout: Seconds, _ call: AssertionCall,
        isolation: isolated (any Actor)? = #isolation
    ) async -> Seconds? {
        guard let tracker = trackDropping(&object) else { return 0 }
        return await releaseVerdict(tracker, T.self, timeout: timeout, when: afterDrop, call)
    }

    /// Tracks `object`, then drops this reference to it (`object` becomes `nil`) and marks the
    /// scope's end: the start of both `released(_:within:_:)` waits. `nil` when it was `nil`.
    private static func trackDropping<T: AnyObject>(_ object: inout T?) -> ReleaseTracker? {
        guard let strong = object else { return nil }
        let tracker = ReleaseTracker()
        tracker.track(strong, label)
        _ = consume strong
        object = nil
        tracker.markScopeEnd(label)
        return tracker
    }

    static let afterDrop = "after its last reference here was dropped"

    /// Waits for the release; on a miss, looks again for longer and fails saying what it saw.
    /// Returns the seconds from scope end to release, `nil` on failure.
    private static func releaseVerdict<T>(
        _ tracker: ReleaseTracker, _ type: T.Type, timeout: Seconds, when: String,
        _ call: AssertionCall
    ) -> Seconds? {
        let waited = StallAllowance.wait(budget: timeout) { tracker.waitUntilReleased(label, within: $0) }
        guard waited.met else {
            let look = secondLookNow(after: timeout)
            let late = tracker.waitUntilReleased(label, within: look)
            call.fail(
                leakMessage(
                    tracker, T.self, timeout: timeout, look: look, when: when, releasedLate: late,
                    allowed: waited.allowed) + (late ? "" : MainActorHeld.noteIfHeld()))
            return nil
        }
        return releasePassed(tracker, T.self, timeout: timeout, waited, call)
    }

    /// `releaseVerdict` without blocking the thread.
    private static func releaseVerdict<T>(
        _ tracker: ReleaseTracker, _ type: T.Type, timeout: Seconds, when: String,
        _ call: AssertionCall, isolation: isolated (any Actor)? = #isolation
    ) async -> Seconds? {
        let waited = await StallAllowance.wait(budget: timeout) { await tracker.waitUntilReleased(label, within: $0) }
        guard waited.met else {
            let look = secondLookNow(after: timeout)
            let late = await tracker.waitUntilReleased(label, within: look)
            call.fail(
                leakMessage(
                    tracker, T.self, timeout: timeout, look: look, when: when, releasedLate: late,
                    allowed: waited.allowed))
            return nil
        }
        return releasePassed(tracker, T.self, timeout: timeout, waited, call)
    }

    /// The seconds from scope end to release, after noting a release that came only in a
    /// stall's allowance.
    private static func releasePassed<T>(
        _ tracker: ReleaseTracker, _ type: T.Type, timeout: Seconds, _ waited: StallAllowance.Outcome,
        _ call: AssertionCall
    ) -> Seconds {
        let delay = max(0, tracker.releaseDelay(label) ?? 0)
        // Judged on the release's own time: the wait may have seen it at its deadline's poll.
        if delay > timeout {
            call.noteAllowance(
                StallAllowance.note(
                    "\(T.self) was released \(Format.seconds(delay)) after the wait began", budget: timeout,
                    lost: waited.lost))
        }
        return delay
    }

    static let afterMake = "of its last outside reference going away"

    /// How long the exactly-once checks watch for a second call after the first, unless told:
    /// a second long, so a timeout racing a late reply (the reply a few hundred milliseconds
    /// after the timeout's call) is seen. A pass says how long it watched.
    public static let defaultGrace: Seconds = 1.0

    /// How much longer a failed release wait looks again, to tell a late release from none:
    /// five seconds (`secondLookFloor`), or four times the wait when that is longer (at most
    /// thirty). It does not shrink with a short wait: a release three seconds late is "released
    /// late" at `within: 0.5` as at `within: 2` (with four times the wait, at least a second, the
    /// first was called a retain cycle).
    public static func secondLook(after timeout: Seconds) -> Seconds { min(max(secondLookFloor, 4 * timeout), 30) }

    /// The second look a failed wait takes now: `secondLook(after:)`, ending `hangMargin` before
    /// the test's hang watch fires (`HangWatch.deadlineOfThisTest`), so that a leak under a short
    /// hang watch fails as the leak it is, with what holds it, not as a hang of the harness's wait.
    static func secondLookNow(after timeout: Seconds) -> Seconds {
        let look = secondLook(after: timeout)
        guard let fires = HangWatch.deadlineOfThisTest else { return look }
        return max(0, min(look, fires - MonotonicClock.now() - hangMargin))
    }

    /// How long before a hang watch fires a second look ends: the failure's message and the
    /// test's end then come first.
    static let hangMargin: Seconds = 1

    /// The second look's floor: 5 s. A test of the failing path whose object is never released
    /// (a retain cycle) may bind a shorter one around its assertion, on the thread or task that
    /// calls it: `HarnessAssertions.$secondLookFloor.withValue(0.5) { ... }`. Its verdict does
    /// not depend on it; a test that tells a late release from none keeps the default.
    @TaskLocal public static var secondLookFloor: Seconds = 5

    /// `T was not released within 200 ms …`, then what the second look found: a release that
    /// came late (with when), or how many strong references still hold the object.
    static func leakMessage<T>(
        _ tracker: ReleaseTracker, _ type: T.Type, timeout: Seconds, look: Seconds, when: String, releasedLate: Bool,
        label: String = HarnessAssertions.label, allowed: Seconds = 0
    ) -> String {
        let head = "\(T.self) was not released within \(Format.seconds(timeout)) \(when)"
            + StallAllowance.clause(allowed)
        if releasedLate {
            let after = tracker.releaseDelay(label).map { " (\(Format.seconds($0)) after)" } ?? ""
            return head
                + "; it was released late\(after): something held it longer than the wait (a scheduled block, a timer, a task), not for ever"
        }
        let cut = look < secondLook(after: timeout) ? " (cut short by the test's hang watch)" : ""
        return head + ", nor within a second look of \(Format.seconds(look))\(cut): "
            + holders(
                tracker.strongReferences(label), found: tracker.holders(of: label, among: [label]),
                knows: "the object itself")
    }

    /// `1 strong reference still holds it: held by a closure stored in its own property
    /// `onChange`, which captured it (a retain cycle)`, or, when no holder is found among what
    /// the harness can look into (`knows`), that it could not say.
    public static func holders(_ count: Int?, found: [String]? = nil, knows: String = "the object itself") -> String {
        guard let count else { return "it went meanwhile" }
        let head = "\(count) strong reference\(count == 1 ? "" : "s") still hold\(count == 1 ? "s" : "") it"
        guard let found else { return head + " (a retain cycle, or an owner that keeps it)" }
        if found.isEmpty {
            return head + "; LabHarness found no holder among what it can look into (\(knows)): an owner it cannot see "
                + "(a global or a cache, a queue's pending block, a task, a closure kept in a dictionary or a set, "
                + "a capture it cannot read)"
        }
        return head + ": held by " + found.joined(separator: "; and by ")
    }

    /// The object `make` returns must still be alive `duration` later: documents a leak on
    /// purpose. True when it stayed. `make` runs in a pool of its own, as for `released`, so
    /// what keeps the object is the code, not the test's autorelease pool.
    public static func notReleased<T: AnyObject>(
        after duration: Seconds, _ call: AssertionCall, _ make: () -> T
    ) -> Bool {
        let tracker = ReleaseTracker()
        HostPlatform.withAutoreleasePool {
            let object = make()
            tracker.track(object, label)
        }
        if tracker.waitUntilReleased(label, within: duration) {
            call.fail(releasedAfterAll(T.self, duration))
            return false
        }
        return true
    }

    /// `notReleased(after:_:_:)` without blocking: it runs on the caller's actor (`isolation`)
    /// and each poll suspends, so in a `@MainActor` test the main actor runs what the object
    /// scheduled there, and a model those tasks release fails here as the release it is. The
    /// synchronous form holds the main actor for the whole wait there, and passes such a model.
    ///
    /// No autorelease pool of its own, as for the async `released`: the wait's first suspension
    /// ends the job that ran `make`, and with it the pool the runtime runs each job in.
    public static func notReleased<T: AnyObject>(
        after duration: Seconds, _ call: AssertionCall,
        isolation: isolated (any Actor)? = #isolation,
        _ make: () async -> T
    ) async -> Bool {
        let tracker = ReleaseTracker()
        do {
            let object = await make()
            tracker.track(object, label)
        }
        if await tracker.waitUntilReleased(label, within: duration) {
            call.fail(releasedAfterAll(T.self, duration))
            return false
        }
        return true
    }

    private static func releasedAfterAll<T>(_ type: T.Type, _ duration: Seconds) -> String {
        "\(T.self) was released, but it was expected to stay alive (leak) for \(Format.seconds(duration))"
    }

    /// Every object tracked by `check` must be gone within `timeout`.
    /// Each survivor fails at the line that tracked it (the check's own line when unknown).
    public static func allReleased(_ check: LeakCheck, within timeout: Seconds, _ call: AssertionCall) {
        let outcome = check.check(within: timeout)
        let note = outcome.survivors.isEmpty ? "" : MainActorHeld.noteIfHeld()
        report(outcome, within: timeout, call, note: note)
    }

    /// `allReleased(_:within:_:)` without blocking: the wait suspends (`LeakCheck.survivors`'s
    /// async form), so in a `@MainActor` test the main actor runs the tasks and main-queue blocks
    /// that release what the check tracks. The synchronous form holds it for the whole wait.
    public static func allReleased(
        _ check: LeakCheck, within timeout: Seconds, _ call: AssertionCall,
        isolation: isolated (any Actor)? = #isolation
    ) async {
        report(await check.check(within: timeout), within: timeout, call)
    }

    private static func report(
        _ outcome: LeakCheck.Outcome, within timeout: Seconds, _ call: AssertionCall, note: String = ""
    ) {
        if let text = outcome.allowanceNote(budget: timeout) { call.noteAllowance(text) }
        for survivor in outcome.survivors {
            var at = call
            at.site = survivor.site ?? call.site
            at.fail(survivor.failure(timeout: timeout, checkedAt: call.site, allowed: outcome.stallAllowance) + note)
        }
    }

    // MARK: Completion

    /// `block` must finish within `timeout`. It runs here, on the calling thread (the main
    /// thread stays the main thread), while a watchdog thread watches the budget: when it runs
    /// out, the watchdog takes the stuck thread's stack; a block that returns late fails with
    /// that stack, one still stuck `CompletionWatch.grace` later fails and ends the process
    /// (see `CompletionWatch`). Returns the block's duration, `nil` on failure.
    public static func completes(
        within timeout: Seconds, _ call: AssertionCall, _ block: () throws -> Void
    ) rethrows -> Seconds? {
        // The control first, so that its own start is in neither the block's time nor its budget.
        let control = StallAllowance()
        defer { control.stop() }
        control.begin()
        let start = MonotonicClock.now()
        let watch = CompletionWatch(timeout: timeout, call: call)
        guard watch.started else {
            call.fail(CompletionWatch.notStartedMessage)
            return nil
        }
        let stuck: String?, took: Seconds, lost: Seconds
        do {
            try block()
            // Read before the watchdog's stack, which the block's time must not include.
            (took, lost) = (MonotonicClock.now() - start, control.lost)
            stuck = watch.blockReturned()
        } catch {
            _ = watch.blockReturned()
            throw error
        }
        // The block's own clock judges: a watchdog that took its stack as it returned in time
        // (the two raced at the budget) is no overrun.
        guard took > timeout else { return took }
        // What the machine took from the block's time is not the block's: the budget judges the rest.
        if lost >= StallAllowance.floor, took - lost <= timeout {
            call.noteAllowance(
                StallAllowance.note("the block returned after \(Format.seconds(took))", budget: timeout, lost: lost))
            return took
        }
        let returned = " (it returned after \(Format.seconds(took)))" + StallAllowance.discounted(lost)
        // Without a stack, the watchdog thread was held off (a loaded machine): the clock alone judges.
        call.fail(
            CompletionWatch.overrunMessage(timeout) + returned
                + (stuck.map { "; when the budget ran out its thread was:" + $0 } ?? ""))
        return nil
    }

    /// `operation` must finish within `timeout`. It runs in a task of its own; when it overruns,
    /// the failure is reported and the task is cancelled and abandoned. Meanwhile standard error
    /// is copied (`StderrCapture`, which passes everything on as it comes), so the failure can
    /// quote the runtime's line for a continuation dropped without a resume.
    public static func completes(
        within timeout: Seconds, _ call: AssertionCall, _ operation: @escaping @Sendable () async -> Void
    ) async -> Seconds? {
        let capture = Result { try StderrCapture() }
        defer { try? capture.get().end() }
        let start = MonotonicClock.now()
        let finishedAt = Shared<Seconds?>(nil), began = Atomic<Bool>(false)
        // The same-moment control: could the pool run a task meanwhile, did the machine stall.
        let control = PoolWatch(timeout: timeout) { finishedAt.get() != nil }
        let task = Task {
            began.store(true, ordering: .releasing)
            await operation()
            finishedAt.set(MonotonicClock.now())
        }
        // A stall of the whole machine (the control's thread was held up) is waited out too.
        let waited = await StallAllowance.extend(
            budget: timeout, lost: { control.machineLost }, until: StallAllowance.hangWatchCeiling
        ) {
            await MainQueueFriendlyWait.until(within: $0) { finishedAt.get() != nil }
        }
        guard let end = finishedAt.get() else {
            task.cancel()
            let held = await control.finish(ended: false)
            let never = began.load(ordering: .acquiring) ? "" : " (it had not begun: no thread ran it)"
            call.fail(
                CompletionWatch.overrunMessage(timeout) + StallAllowance.clause(waited.allowed)
                    + "; its task was cancelled and abandoned" + never + held + ContinuationLeak.quote(capture))
            return nil
        }
        let took = end - start
        let lost = control.machineLost
        let held = await control.finish(ended: took <= timeout)
        if took > timeout, lost >= StallAllowance.floor, took - lost <= timeout {
            call.noteAllowance(
                StallAllowance.note("the operation finished after \(Format.seconds(took))", budget: timeout, lost: lost))
            return took
        }
        if took > timeout {
            // The wait was held off past the budget (an operation that blocks every thread of
            // the cooperative pool keeps it from waking, as does a stalled machine) and found
            // the operation done when it woke: the operation's own clock judges, as in the
            // synchronous form, and the control says whether the pool or the machine was held.
            call.fail(
                CompletionWatch.overrunMessage(timeout) + " (it finished after \(Format.seconds(took)))"
                    + StallAllowance.discounted(lost) + held)
            return nil
        }
        return took
    }

    // MARK: Threads

    /// While `block` runs, the threads it adds (by identity, see `NewThreadWatch`) or the total
    /// must stay under `limit`. Returns the sampled thread-count timeline, for charts.
    public static func threadPeak(
        staysUnder limit: Int, counting: ThreadCounting, interval: Seconds,
        _ call: AssertionCall, _ block: () throws -> Void
    ) rethrows -> ThreadTimeline {
        let measurement = ThreadPeakMeasurement(interval: interval, stacksAt: counting == .added ? limit : nil)
        do { try block() } catch {
            _ = measurement.finish()
            throw error
        }
        let (timeline, appeared) = measurement.finish()
        threadVerdict(
            limit: limit, counting: counting, timeline: timeline, appeared: appeared, stacks: measurement.stacksText(),
            call)
        return timeline
    }

    /// `threadPeak` for an async body.
    public static func threadPeak(
        staysUnder limit: Int, counting: ThreadCounting, interval: Seconds,
        _ call: AssertionCall, isolation: isolated (any Actor)? = #isolation,
        _ block: () async throws -> Void
    ) async rethrows -> ThreadTimeline {
        let measurement = ThreadPeakMeasurement(interval: interval, stacksAt: counting == .added ? limit : nil)
        do { try await block() } catch {
            _ = measurement.finish()
            throw error
        }
        let (timeline, appeared) = measurement.finish()
        threadVerdict(
            limit: limit, counting: counting, timeline: timeline, appeared: appeared, stacks: measurement.stacksText(),
            call)
        return timeline
    }

    /// Reports when the measured count reaches `limit`; the message names the new threads.
    static func threadVerdict(
        limit: Int, counting: ThreadCounting, timeline: ThreadTimeline,
        appeared: [NewThreadWatch.Appeared], stacks: String = "", _ call: AssertionCall
    ) {
        switch counting {
        case .added where appeared.count >= limit:
            call.fail(
                "the block added \(NewThreadWatch.summary(appeared)); the limit was under \(limit) (threads are counted process-wide)"
                    + stacks)
        case .total where timeline.peak >= limit:
            call.fail(
                "the process peaked at \(timeline.peak) threads while the block ran; the limit was under \(limit)")
        case .added:
            call.notePass(
                "the block added \(NewThreadWatch.summary(appeared)), under the limit of \(limit) (peak \(timeline.peak) threads in the process)"
            )
        case .total:
            call.notePass(
                "the process peaked at \(timeline.peak) threads while the block ran, under the limit of \(limit)")
        }
    }

    // MARK: Callbacks

    /// The callback handed to `start` must be called once within `timeout`, and not again within
    /// `grace` after that. Returns the first call, `nil` when there was none.
    public static func calledExactlyOnce<Value: Sendable>(
        within timeout: Seconds, grace: Seconds, _ call: AssertionCall,
        _ start: (@escaping @Sendable (Value) -> Void) -> Void
    ) -> CallProbe<Value>.Call? {
        let probe = CallProbe<Value>()
        let sites = CallSites()
        let startedAt = MonotonicClock.now()
        start { value in
            sites.note { probe.record(value) }
        }
        let waitStart = MonotonicClock.now()
        let arrival = StallAllowance.wait(budget: timeout) { probe.waitForCall(within: $0) }
        let watched = arrival.met ? StallAllowance.wait(budget: grace) { probe.settle(for: $0); return false } : nil
        return exactlyOnceVerdict(
            probe, sites, arrival: arrival, startedAt: startedAt, waitStart: waitStart, timeout: timeout,
            grace: grace + (watched?.allowed ?? 0), call, held: MainActorHeld.noteIfHeld("call the callback"))
    }

    /// `calledExactlyOnce` for an async `start`; waits without blocking.
    public static func calledExactlyOnce<Value: Sendable>(
        within timeout: Seconds, grace: Seconds, _ call: AssertionCall,
        isolation: isolated (any Actor)? = #isolation,
        _ start: (@escaping @Sendable (Value) -> Void) async -> Void
    ) async -> CallProbe<Value>.Call? {
        let probe = CallProbe<Value>()
        let sites = CallSites()
        let startedAt = MonotonicClock.now()
        await start { value in
            sites.note { probe.record(value) }
        }
        let waitStart = MonotonicClock.now()
        let arrival = await StallAllowance.wait(budget: timeout) { await probe.waitForCall(within: $0) }
        var watched: StallAllowance.Outcome?
        if arrival.met {
            watched = await StallAllowance.wait(budget: grace) { await MainQueueFriendlyWait.pass($0); return false }
        }
        return exactlyOnceVerdict(
            probe, sites, arrival: arrival, startedAt: startedAt, waitStart: waitStart, timeout: timeout,
            grace: grace + (watched?.allowed ?? 0), call)
    }

    /// The callback handed to `start` must be called, within `timeout`, on the main queue
    /// (`MainQueueMark`: true for a block of the main queue whichever thread drains it). Returns
    /// the first call, `nil` on failure.
    public static func calledOnMainQueue<Value: Sendable>(
        within timeout: Seconds, _ call: AssertionCall,
        _ start: (@escaping @Sendable (Value) -> Void) -> Void
    ) -> CallProbe<Value>.Call? {
        MainQueueMark.prepare()
        let probe = CallProbe<Value>()
        let startedAt = MonotonicClock.now()
        start { value in probe.record(value) }
        let waitStart = MonotonicClock.now()
        let arrival = StallAllowance.wait(budget: timeout) { probe.waitForCall(within: $0) }
        return mainQueueVerdict(
            probe, arrival: arrival, startedAt: startedAt, waitStart: waitStart, timeout: timeout, call,
            held: MainActorHeld.noteIfHeld("call the callback"))
    }

    /// `calledOnMainQueue` for an async `start`; waits without blocking.
    public static func calledOnMainQueue<Value: Sendable>(
        within timeout: Seconds, _ call: AssertionCall,
        isolation: isolated (any Actor)? = #isolation,
        _ start: (@escaping @Sendable (Value) -> Void) async -> Void
    ) async -> CallProbe<Value>.Call? {
        MainQueueMark.prepare()
        let probe = CallProbe<Value>()
        let startedAt = MonotonicClock.now()
        await start { value in probe.record(value) }
        let waitStart = MonotonicClock.now()
        let arrival = await StallAllowance.wait(budget: timeout) { await probe.waitForCall(within: $0) }
        return mainQueueVerdict(
            probe, arrival: arrival, startedAt: startedAt, waitStart: waitStart, timeout: timeout, call)
    }

    /// `held`: the note of a synchronous wait that held the main actor (`MainActorHeld`), or "".
    private static func mainQueueVerdict<Value>(
        _ probe: CallProbe<Value>, arrival: StallAllowance.Outcome, startedAt: Seconds, waitStart: Seconds,
        timeout: Seconds, _ call: AssertionCall, held: String = ""
    ) -> CallProbe<Value>.Call? {
        guard arrival.met, let first = probe.first else {
            call.fail(neverCalled(timeout, arrival) + held)
            return nil
        }
        guard first.isOnMainQueue else {
            call.fail("the callback was called on thread \(first.thread), not on the main queue")
            return nil
        }
        let onTime = judgeArrival(first, arrival, startedAt: startedAt, waitStart: waitStart, timeout: timeout, call)
        return onTime ? first : nil
    }

    /// The verdict once the grace after the first call has passed (the waits are the caller's).
    private static func exactlyOnceVerdict<Value>(
        _ probe: CallProbe<Value>, _ sites: CallSites, arrival: StallAllowance.Outcome, startedAt: Seconds,
        waitStart: Seconds, timeout: Seconds, grace: Seconds, _ call: AssertionCall, held: String = ""
    ) -> CallProbe<Value>.Call? {
        guard arrival.met, let first = probe.first else {
            call.fail(neverCalled(timeout, arrival) + held)
            return nil
        }
        let calls = probe.all
        if calls.count == 1 {
            guard judgeArrival(first, arrival, startedAt: startedAt, waitStart: waitStart, timeout: timeout, call)
            else { return nil }
            call.notePass(
                "the callback was called once, \(Format.seconds(max(0, first.at - startedAt))) after the start; "
                    + "no second call came in the \(Format.seconds(grace)) watched after it")
        }
        if calls.count > 1 {
            // The first two calls, each with its value and the caller's own lines.
            let shown = calls.prefix(2).enumerated().map { index, made in
                "call \(index + 1) with \(describe(made.value)) \(sites.place(of: index))"
            }
            call.fail(
                "the callback was called \(calls.count) times; it must be called exactly once: "
                    + shown.joined(separator: "; "))
        }
        return probe.first
    }

    /// `the callback was never called within 300 ms`, with the stall allowance it was given.
    private static func neverCalled(_ timeout: Seconds, _ arrival: StallAllowance.Outcome) -> String {
        "the callback was never called within \(Format.seconds(timeout))" + StallAllowance.clause(arrival.allowed)
    }

    /// Notes a first call that came only in a stall's allowance.
    /// `waitStart`: when the budget's wait began (after `start` returned).
    /// Judges the first call on its own time, which the callback recorded as it came: a wait
    /// held off past its budget (a cooperative pool the code under test blocked) may have seen a
    /// late call at its deadline's poll. Late beyond what the machine stalled meanwhile (and a
    /// poll's `StallAllowance.floor`) fails; late within it passes with a note. True: passed.
    private static func judgeArrival<Value>(
        _ first: CallProbe<Value>.Call, _ arrival: StallAllowance.Outcome, startedAt: Seconds, waitStart: Seconds,
        timeout: Seconds, _ call: AssertionCall
    ) -> Bool {
        let late = first.at - waitStart - timeout
        guard late > 0 else { return true }
        let after = Format.seconds(first.at - startedAt)
        guard late <= arrival.lost + StallAllowance.floor else {
            call.fail(
                "the callback was called \(after) after the start, past its \(Format.seconds(timeout)) budget"
                    + StallAllowance.discounted(arrival.lost))
            return false
        }
        call.noteAllowance(
            StallAllowance.note("the callback was called \(after) after the start", budget: timeout, lost: arrival.lost))
        return true
    }

    /// A value as a message quotes it: `String(describing:)`, cut to 80 characters.
    static func describe<Value>(_ value: Value) -> String {
        let text = Value.self == Void.self ? "no value" : String(describing: value)
        return text.count > 80 ? String(text.prefix(79)) + "…" : text
    }
}
