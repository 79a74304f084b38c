import Foundation
import LabHarness
import LabHarnessXCTest
import RunloopExperiment
import XCTest

/// The stacks behind the two deadlocks of exp-runloop, as `--json` carries them: where the
/// main thread and the pool's workers were when the deadlock was declared. The two variants
/// run `--quick` as children of `exp-runloop` itself (the shared quick run, `RunloopQuickRun`,
/// comes from `lab all`, whose children's main threads are named "lab").
final class RunloopStacksTests: XCTestCase {
    func testTheDeadlocksShowWhereTheMainThreadAndTheWorkersWait() throws {
        if let reason = StackCapture.unavailableReason { throw XCTSkip(reason) }
        let report = try judgedRun {
            try ExperimentRunner.run(
                runloopExperiment, arguments: ["--quick", "--variant", "sync-semaphore-main,global-queue"],
                executable: BuiltProducts.executable("exp-runloop"))
        }
        let main = try XCTUnwrap(report.variant("sync-semaphore-main")),
            global = try XCTUnwrap(report.variant("global-queue"))
        if let broken = [main, global].first(where: \.outcome.judgesNothing) {
            throw XCTSkip("\(broken.name): \(broken.evidence ?? "")")
        }
        XCTAssertEqual(main.outcome, .deadlock)
        let mainStacks = try XCTUnwrap(main.stacks, main.evidence ?? "")
        let waiting = mainStacks.waiting(in: "_dispatch_semaphore_wait", calledFrom: "MainThreadWrapper.semaphore")
        XCTAssertEqual(waiting.count, 1, "\(mainStacks)")
        XCTAssertEqual(waiting.first?.thread, "exp-runloop", "the main thread carries the program's name")

        XCTAssertEqual(global.outcome, .deadlock)
        let started = Int(global[RunloopMetric.callersStarted] ?? 0) - Int(global[RunloopMetric.completed] ?? 0)
        let callers = global.threadsWaiting(in: "_dispatch_semaphore_wait", calledFrom: "RequestClient.callBlocking")
        XCTAssertGreaterThanOrEqual(callers, 1, global.evidence ?? "")
        // Every caller that started and did not finish is in its wait (one more may have started
        // between the verdict and the snapshot, when the pool added a thread).
        XCTAssertGreaterThanOrEqual(callers, started, "\(global.stackGroups.map { $0.summary() })")
        XCTAssertLessThanOrEqual(callers, started + 1, "\(global.stackGroups.map { $0.summary() })")
        XCTAssertTrue(
            global.whereClause(in: "_dispatch_semaphore_wait", calledFrom: "RequestClient.callBlocking")?.contains(
                "dispatch worker") == true,
            "the pool's workers are named as such in the finding's sentence")
    }
}
