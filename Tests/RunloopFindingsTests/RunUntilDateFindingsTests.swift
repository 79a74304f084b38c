import Foundation
import LabHarness
import LabHarnessXCTest
import RunloopExperiment
import XCTest

/// The seed's double guard, `run(until: timeout + 5 s)`, and its commented-out
/// `NSOperationQueue` callers, each measured as the article wrote them.
final class RunUntilDateFindingsTests: XCTestCase {
    private func run(_ variants: [RunloopVariant]) throws -> ExperimentReport {
        try ExperimentRunner.run(runloopExperiment, arguments: ["--quick", "--variant", variants.map(\.rawValue).joined(separator: ",")],
                                 executable: BuiltProducts.executable("exp-runloop"))
    }

    /// Both halves of the article's promise that the run loop "is sure to exit". With callers
    /// that leave the pool free (a thread each), the run-loop block gets a thread, its timer
    /// wakes the caller on time, and `run(until:)` gives the thread back at timeout + guard,
    /// because `CFRunLoopStop` ends only the current pass; `run()` in the same place never
    /// returns. With the seed's global-queue callers the run-loop blocks never start, so the
    /// guard, inside them, never runs either.
    func testTheGuardReleasesTheThreadOnlyWhenTheBlockGetsOne() throws {
        let report = try run([.runUntilDate, .runUntilDateThread])
        let finding = try XCTUnwrap(report.finding("runloop.run-until-date-releases-at-guard"))
        XCTAssertTrue(finding.reproduced, finding.summary)
        let thread = try XCTUnwrap(report.variant(RunloopVariant.runUntilDateThread))
        XCTAssertEqual(thread.outcome, .completed)
        XCTAssertEqual(thread.metrics["completed"], 2, "both callers woke at their timeouts")
        let promised = try XCTUnwrap(thread.metrics["guard.promised_s"])
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(thread.metrics["until_date.released_after_s"]), promised - 0.05,
                                    "run(until:) holds its thread until the guard date, long after the timer stopped the loop")
        XCTAssertEqual(thread.metrics["run.released"], 0, "run() never returns")
        XCTAssertGreaterThan(try XCTUnwrap(thread.metrics["run.held_s"]), promised)
        let global = try XCTUnwrap(report.variant(RunloopVariant.runUntilDate))
        XCTAssertEqual(global.outcome, .deadlock)
    }

    /// The seed's commented-out callers, an operation each on an `OperationQueue` with
    /// `maxConcurrentOperationCount` 300: the count is a ceiling, not threads. Each operation
    /// that blocks holds a thread of the same global pool, so the run-loop blocks queued there
    /// behind them never start, exactly as with global-queue callers.
    func testOperationQueueCallersHoldThePoolLikeGlobalOnes() throws {
        let report = try run([.globalQueueOperationQueue])
        let finding = try XCTUnwrap(report.finding("runloop.operation-queue-callers-hold-the-pool"))
        XCTAssertTrue(finding.reproduced, finding.summary)
        let v = try XCTUnwrap(report.variant(RunloopVariant.globalQueueOperationQueue))
        XCTAssertEqual(v.outcome, .deadlock)
        XCTAssertLessThan(try XCTUnwrap(v.metrics["callers.started"]), try XCTUnwrap(v.metrics["total"]),
                          "far fewer operations ran than maxConcurrentOperationCount allows")
        XCTAssertEqual(v.whereClause(in: "_dispatch_semaphore_wait", calledFrom: "RequestClient.callBlocking") != nil, v.stacks != nil,
                       "where stacks were taken, the operations wait in the caller's semaphore")
    }
}
