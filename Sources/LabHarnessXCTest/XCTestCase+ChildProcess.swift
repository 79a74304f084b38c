import Foundation
import LabHarnessRecording
import XCTest

extension XCTestCase {
    /// Runs `body` in a fresh copy of this test process and asserts how it ends, so code that
    /// deadlocks or traps is measured instead of hanging or killing the test run.
    ///
    /// The test binary is relaunched, filtered to the current test, with an environment
    /// variable naming this call site; the copy runs the test from the top (its `setUp` and the
    /// lines before this call too), runs `body` when it reaches this call, and exits. The
    /// parent classifies the end as `ChildProcess` does: `completed` (the body returned and the
    /// child's test recorded no failure), `failed` (it threw, or the child's test recorded a
    /// failure during the body or the settle time), `crashed` (a trap or a signal), `deadlock`
    /// (killed at `budget` without having reported progress, or after `stallWindow` without
    /// progress once it had), `timedOut` (still reporting progress at its budget). A child whose exit status was lost
    /// (this process ignores SIGCHLD, so the kernel reaped it) fails the assertion whatever was
    /// expected: it may have returned, thrown or trapped, and nobody can say which. After the
    /// body returns, the child lives on for `settle` (half a second unless told, and added to
    /// `budget`, which covers the relaunch and the body), its main run loop turning, so a trap
    /// or a second call that the body set going comes while it is watched: a child that exits at
    /// once turns such a late trap into a pass. The child's stdout is unbuffered, and its output
    /// up to the hang or crash is in the returned run. A failure the copy's XCTest recorded (an
    /// `XCTFail`, a failed assertion of this module, from any thread) ends it `failed`, and the
    /// parent's failure quotes it (`the body recorded 1 failure: Tests.swift:12: failed - did not
    /// complete within 200 ms …`): XCTest in the copy took the failure, and a copy that exited 0
    /// after it would have passed here. A test case that overrides `recordFailure` and keeps a
    /// failure (a test of tests) keeps it in the copy too. A child killed at its budget or for a
    /// stall had every thread's stack taken first: a failure lists them grouped
    /// (`1 thread (main thread): in _dispatch_semaphore_wait_slow ← Fetcher.fetch (Fetcher.swift:21) ← …`),
    /// and `run.stacks` has them all.
    ///
    /// ```swift
    /// func testLockOrderDeadlocks() {
    ///     assertInChildProcess(expecting: .deadlock, budget: 2) { transferBothWays() }
    /// }
    /// ```
    @discardableResult
    public func assertInChildProcess(
        expecting expected: ChildOutcome, budget: some WaitTime = 10.0,
        stallWindow: Double? = nil, settle: some WaitTime = ClosureChildTrial.defaultSettle,
        _ message: @autoclosure () -> String = "",
        reporter: FailureReporter = .xctest,
        file: StaticString = #filePath, line: UInt = #line,
        fileID: StaticString = #fileID, column: UInt = #column,
        _ body: () throws -> Void
    ) -> ChildRun? {
        let call = assertionCall(reporter, message(), fileID: fileID, file: file, line: line, column: column)
        let site = ClosureChildTrial.siteKey(call.site)
        if let requested = ClosureChildTrial.requestedSite {
            // In a child: run this site's body, skip every other site.
            if requested == site {
                ClosureChildTrial.runBodyAndExit(failuresSince: FrameworkRecording.xctestFailures(from: self), body)
            }
            return nil
        }
        let (testClass, method) = currentTestIdentity()
        let command = TestBinaryRelaunch.command(testClass: testClass, method: method)
        let spec = ChildSpec(
            executable: command.executable, arguments: command.arguments,
            environment: [
                ClosureChildTrial.siteVariable: site,
                ClosureChildTrial.settleVariable: String(settle.labSeconds),
            ],
            budget: budget.labSeconds + settle.labSeconds, stallWindow: stallWindow)
        let run: ChildRun
        do {
            run = try ChildProcess.run(spec)
        } catch {
            call.fail("could not relaunch the test binary for a child trial: \(error)")
            return nil
        }
        if run.exitStatusLost {
            call.fail(
                "expected the child to end \(expected.rawValue), and how it ended is unknown after \(Format.seconds(run.wall)) (\(run.evidence))"
                    + Self.outputTail(run))
        } else if run.outcome != expected {
            // A crash: the backtracer's report of the crashing thread, rather than the report's
            // last lines (its list of loaded images).
            let crashed = run.outcome == .crashed ? CrashReport.crashingThread(in: run.stderr) : nil
            // Failures the child's test recorded: what they said, rather than the stderr tail.
            let recorded = ClosureChildTrial.recordedFailures(of: run)
            let evidence = recorded != nil ? run.exitCode.map { "exited \($0)" } ?? run.evidence : run.evidence
            call.fail(
                "expected the child to end \(expected.rawValue), it ended \(run.outcome.rawValue) after \(Format.seconds(run.wall)) (\(evidence))"
                    + (crashed.map { "; its crashing thread:\n    " + $0 } ?? recorded.map { ": " + $0 }
                        ?? Self.outputTail(run))
                    + (run.rawStacks == nil
                        ? "" : "; where its threads were when it was killed:" + HangStacks.block(of: run)))
        } else if expected == .completed, run.resultPayload != "returned" {
            call.fail(
                "the child exited 0 without running the body (the relaunched test did not reach this line)"
                    + Self.outputTail(run))
        } else if expected == .completed {
            print(
                "\(call.site): note: the child completed, and nothing went wrong in the \(Format.seconds(settle.labSeconds)) it was watched after its body returned"
            )
        }
        return run
    }

    /// `Module.Class` and the test method, from XCTest's name (`-[Class method]` on Darwin,
    /// `Class.method` on Linux).
    private func currentTestIdentity() -> (testClass: String, method: String) {
        let qualified = String(reflecting: type(of: self))
        var method = name
        if method.hasPrefix("-[") && method.hasSuffix("]") {
            method = String(method.dropFirst(2).dropLast())
            method = method.split(separator: " ").last.map(String.init) ?? method
        } else if let dot = method.lastIndex(of: ".") {
            method = String(method[method.index(after: dot)...])
        }
        return (qualified, method)
    }

    private static func outputTail(_ run: ChildRun) -> String {
        let err = run.stderr.split(separator: "\n").suffix(3).joined(separator: " | ")
        return err.isEmpty ? "" : "; stderr ends: \(err)"
    }
}
