import CLabSupport
import Foundation
import LabHarness
import LabHarnessXCTest
import XCTest

/// `assertInChildProcess`: the test binary relaunched for one closure, so a deadlock or a trap
/// is measured, with the child's output up to that moment kept. Each body below runs only in
/// the child; the checks after each call run only in the parent.
final class ChildTrialTests: XCTestCase {
    /// No settle time: it starts when the body returns, and this body never does, so a settle
    /// would only be added to the budget before the kill (2.5 s with the default half second).
    func testABodyThatDeadlocksIsKilledAtItsBudgetAndClassifiedDeadlock() throws {
        let start = MonotonicClock.now()
        let run = try XCTUnwrap(assertInChildProcess(expecting: .deadlock, budget: 2, settle: 0) {
            print("before the hang")
            DispatchSemaphore(value: 0).wait()
        })
        XCTAssertEqual(run.outcome, .deadlock)
        XCTAssertTrue(run.killedByHarness)
        XCTAssertTrue(run.stdout.contains("before the hang"), "output up to the hang is kept: \(run.stdout.suffix(300))")
        XCTAssertLessThan(MonotonicClock.now() - start, 2 + 5, "the budget, plus a relaunch and the drain")
    }

    /// A trap is a crash in every build, with the runtime's message where the build keeps one:
    /// `fatalError`'s always (a failed precondition's only without `-O`; see the next test).
    func testABodyThatTrapsIsClassifiedCrashedWithItsMessage() throws {
        let run = try XCTUnwrap(assertInChildProcess(expecting: .crashed, budget: 20) {
            print("about to trap")
            fatalError("the body traps on purpose")
        })
        XCTAssertEqual(run.outcome, .crashed)
        XCTAssertFalse(run.killedByHarness)
        XCTAssertTrue(run.stdout.contains("about to trap"), run.stdout.suffix(300).description)
        XCTAssertTrue(run.stderr.contains("the body traps on purpose"), run.stderr.suffix(500).description)
    }

    /// An index out of range traps in every build, but an optimized one (`-O`) traps without
    /// the runtime's "Index out of range": the outcome is the evidence, not the message.
    func testAnIndexOutOfRangeIsCrashedInEveryBuild() throws {
        let run = try XCTUnwrap(assertInChildProcess(expecting: .crashed, budget: 20) {
            let values: [Int] = []
            _ = values[values.count]  // index out of range: a trap
        })
        XCTAssertEqual(run.outcome, .crashed)
        XCTAssertFalse(run.killedByHarness)
    }

    func testABodyThatReturnsCompletes() throws {
        let run = try XCTUnwrap(assertInChildProcess(expecting: .completed, budget: 20) {
            print("done")
        })
        XCTAssertEqual(run.resultPayload, "returned")
        XCTAssertTrue(run.stdout.contains("done"))
    }

    /// The settle time is the harness's, after the body returned: it is added to the budget, not
    /// taken from it. Before, a settle as long as the budget killed every healthy child in it:
    /// "expected the child to end completed, it ended deadlock".
    func testTheSettleTimeIsNotTakenFromTheBudget() throws {
        let run = try XCTUnwrap(assertInChildProcess(expecting: .completed, budget: 1, settle: 1) { print("done") })
        XCTAssertEqual(run.resultPayload, "returned")
        XCTAssertGreaterThanOrEqual(run.wall, 1, "it lived on for the whole settle")
    }

    /// A quiet child that never reports progress is not cut off by a stall window: the window
    /// opens at the first progress report. Its body is quiet four windows long; a settle after
    /// it would only be more of the same quiet (the settle is tested above).
    func testAQuietHealthyChildWithAStallWindowCompletes() throws {
        let run = try XCTUnwrap(assertInChildProcess(expecting: .completed, budget: 20, stallWindow: 0.2, settle: 0) {
            Thread.sleep(forTimeInterval: 0.8)
        })
        XCTAssertGreaterThanOrEqual(run.wall, 0.8)
    }

    /// An outcome other than the expected one fails at the caller's line, with the evidence. The
    /// body never returns, so it has no settle time: one would only delay the kill.
    func testAnUnexpectedOutcomeFailsAtTheCallersLine() {
        let recorder = LabHarness.RecordingReporter()
        let line = #line + 1
        let run = assertInChildProcess(expecting: .completed, budget: 1.5, settle: 0, reporter: recorder.reporter) {
            DispatchSemaphore(value: 0).wait()
        }
        XCTAssertEqual(run?.outcome, .deadlock)
        XCTAssertEqual(recorder.failures.count, 1)
        XCTAssertEqual(recorder.failures.first?.site.line, line)
        XCTAssertTrue(recorder.messages.first?.contains("expected the child to end completed, it ended deadlock") ?? false, "\(recorder.messages)")
    }

    /// When this process ignores SIGCHLD, the kernel reaps the child and its end is unknown: the
    /// assertion fails whatever it expected, naming the cause, rather than let a lost end pass
    /// (here for `failed`, which a trap or a clean exit could have been as well).
    func testAChildWhoseStatusWasLostFailsTheAssertion() {
        // The relaunched child runs these lines too; `clab_spawn` gave it SIGCHLD's default.
        XCTAssertEqual(clab_sigchld_discard_status(0), 0)
        defer { XCTAssertEqual(clab_sigchld_restore(), 0) }
        let recorder = LabHarness.RecordingReporter()
        let run = assertInChildProcess(expecting: .failed, budget: 20, reporter: recorder.reporter) {
            throw CocoaError(.featureUnsupported)
        }
        XCTAssertNotNil(run)
        XCTAssertNotEqual(run?.outcome, .completed)
        XCTAssertEqual(recorder.failures.count, 1)
        XCTAssertTrue(
            recorder.messages.first?.contains("how it ended is unknown") ?? false, "\(recorder.messages)")
        XCTAssertTrue(
            recorder.messages.first?.contains("this process ignores SIGCHLD") ?? false, "\(recorder.messages)")
    }

    /// A failure no framework can record is not dropped: it is printed, and the process exits 1
    /// (its exit handler turns the status). No settle: the failure is made in the body.
    func testAFailureWithNoTestToRecordItFailsTheProcess() throws {
        let run = try XCTUnwrap(assertInChildProcess(expecting: .failed, budget: 20, settle: 0) {
            UnattendedFailure.report("a leak nobody asked about", at: FailureSite(fileID: "M/F.swift", filePath: "/x/F.swift", line: 7, column: 3))
        })
        XCTAssertEqual(run.exitCode, 1)
        XCTAssertTrue(run.stderr.contains("/x/F.swift:7:3: error: LabHarness assertion failed with no test to record it: a leak nobody asked about"),
                      run.stderr.suffix(500).description)
    }
}
