import FindingsTestSupport
import Foundation
import LabHarness
import LabHarnessXCTest
import RunloopExperiment
import XCTest

/// The seed's double guard, `run(until: timeout + 5 s)`, and its commented-out
/// `NSOperationQueue` callers, each measured as the article wrote them (on the shared quick
/// run, `RunloopQuickRun`).
final class RunUntilDateFindingsTests: XCTestCase {
    /// Both halves of the article's promise that the run loop "is sure to exit". With callers
    /// that leave the pool free (a thread each), the run-loop block gets a thread, its timer
    /// wakes the caller on time, and `run(until:)` gives the thread back at timeout + guard,
    /// because `CFRunLoopStop` ends only the current pass; `run()` in the same place never
    /// returns. With the seed's global-queue callers the run-loop blocks never start, so the
    /// guard, inside them, never runs either.
    func testTheGuardReleasesTheThreadOnlyWhenTheBlockGetsOne() throws {
        let report = try RunloopQuickRun.report()
        try assertReproduced("runloop.run-until-date-releases-at-guard", in: report, of: runloopExperiment)
        let thread = try variant(report, .runUntilDateThread)
        XCTAssertEqual(thread.outcome, .completed)
        XCTAssertEqual(thread[RunloopMetric.completed], 2, "both callers woke at their timeouts")
        XCTAssertEqual(thread[RunloopMetric.untilDateReleased], 1, "run(until:) returned, at its guard date")
        XCTAssertEqual(thread[RunloopMetric.runReleased], 0, "run() never returns")
        XCTAssertEqual(try variant(report, .runUntilDate).outcome, .deadlock)
    }

    /// The seed's commented-out callers, an operation each on an `OperationQueue` with
    /// `maxConcurrentOperationCount` 300: the count is a ceiling, not threads. Each operation
    /// that blocks holds a thread of the same global pool, so the run-loop blocks queued there
    /// behind them never start, exactly as with global-queue callers.
    func testOperationQueueCallersHoldThePoolLikeGlobalOnes() throws {
        let report = try RunloopQuickRun.report()
        try assertReproduced("runloop.operation-queue-callers-hold-the-pool", in: report, of: runloopExperiment)
        let v = try variant(report, .globalQueueOperationQueue)
        XCTAssertEqual(v.outcome, .deadlock)
        XCTAssertLessThan(
            v[RunloopMetric.callersStarted] ?? .infinity, v[RunloopMetric.total] ?? 0,
            "far fewer operations ran than maxConcurrentOperationCount allows")
        XCTAssertEqual(
            v.whereClause(in: "_dispatch_semaphore_wait", calledFrom: "RequestClient.callBlocking") != nil,
            v.stacks != nil,
            "where stacks were taken, the operations wait in the caller's semaphore")
    }
}
