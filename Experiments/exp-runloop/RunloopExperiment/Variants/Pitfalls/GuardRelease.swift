import Foundation
import LabHarness

/// The article's "double guard", `run(until: timeout + 5 s)`, with callers that leave the pool
/// free (a thread each), so the run-loop blocks on the global queue do get a thread.
///
/// Two requests side by side, each run loop in a block on the global queue with a port and the
/// timeout timer, each caller a thread blocked on a semaphore: request 0 runs its loop with
/// `run(until:)` and the guard, request 1 with `run()` as the article wrote it. Both callers wake
/// when their timers fire. `CFRunLoopStop` ends only the current pass, so `run(until:)` keeps
/// its thread until the guard date and then returns (what the article promised: the thread is
/// released), and `run()` never returns. Progress: each caller that wakes, and request 0's release.
enum GuardRelease {
    static let untilDate = 0, forever = 1
    /// How long past the guard date the trial watches for the release before calling it held.
    static let grace: TimeInterval = 2

    static func run(_ context: VariantContext) -> VariantRecord {
        let p = context.parameters(RunloopParameters.self), timeout = p.timeout, guardSeconds = p.guardSeconds
        let promised = timeout + guardSeconds
        let log = StepTable(count: 2, row: RequestTimes()), gauge = PeakGauge(), progress = context.progress
        for (index, style) in [
            (untilDate, TimeoutRunLoop.Style.untilDate(guardSeconds: guardSeconds)), (forever, .forever),
        ] {
            log.mark(index, \.submitted)
            NamedThread.start("rl.caller") {
                log.mark(index, \.started)
                let done = DispatchSemaphore(value: 0)
                DispatchQueue.global().async {
                    TimeoutRunLoop.run(index, timeout: timeout, style: style, log: log, gauge: gauge) { done.signal() }
                    if index == untilDate { progress.advance() }
                }
                done.wait()  // a thread caller: blocks its own thread, not a pool thread
                log.mark(index, \.woke)
                progress.advance()
            }
        }
        // Watch request 0 until it is released or `grace` past its guard date, then request 1
        // at least as long after its own arming.
        let start = MonotonicClock.now(), giveUp = start + promised + grace + 5
        while MonotonicClock.now() < giveUp, log[untilDate].released == nil,
            log[untilDate].armed.map({ MonotonicClock.now() <= $0 + promised + grace }) ?? true
        {
            MonotonicClock.sleep(for: 0.01)
        }
        let watchedUntil = max(MonotonicClock.now(), (log[forever].armed ?? start) + promised + 0.5)
        while MonotonicClock.now() < watchedUntil, log[forever].released == nil { MonotonicClock.sleep(for: 0.01) }
        let end = MonotonicClock.now()

        let a = log[untilDate], b = log[forever]
        var m: Metrics = [
            RunloopMetric.total: 2, RunloopMetric.completed: Double([a, b].count { $0.woke != nil }),
            RunloopMetric.fired: Double([a, b].count { $0.fired != nil }), RunloopMetric.guardPromisedS: promised,
            RunloopMetric.untilDateReleased: a.released == nil ? 0 : 1,
            RunloopMetric.runReleased: b.released == nil ? 0 : 1,
            RunloopMetric.wallS: end - start,
        ]
        if let armed = a.armed, let released = a.released {
            m[RunloopMetric.untilDateReleasedAfterS] = released - armed
            m[RunloopMetric.untilDateExcessS] = max(
                0, released - armed - promised - context.machineDelay(from: armed + promised, to: released))
        }
        m[RunloopMetric.runHeldS] = b.armed.map { (b.released ?? end) - $0 }

        let outcome: Outcome = m[RunloopMetric.completed] != 2 ? .stalled : a.released == nil ? .leaked : .completed
        let untilText =
            a.released.flatMap { r in
                a.armed.map { "run(until:) released its thread \(Format.seconds(r - $0)) after arming" }
            }
            ?? "run(until:) still held its thread"
        let runText =
            b.released == nil
            ? "run() still held its thread after \(Format.seconds(m[RunloopMetric.runHeldS] ?? 0))" : "run() returned"
        return VariantRecord(
            outcome: outcome, metrics: m,
            evidence:
                "both callers woke at their \(Format.seconds(timeout)) timeouts; \(untilText) (timeout + guard \(Format.seconds(promised))); \(runText)"
        )
    }
}
