import Foundation
import LabHarness
import LabHarnessXCTest
import LabRunner
import XCTest

/// The flags and commands of the parent-child protocol (`--child-variant`, `bench-child`) work
/// only in a process the lab started itself. Typed by a user they are refused with one line and
/// exit 64: run by hand, a trial meant to deadlock would hang the terminal, one meant to trap
/// would print a trace.
final class InternalFlagTests: XCTestCase {
    /// Runs `lab` as a user would: without the lab's handshake in its environment (a wrong value
    /// stands in for an absent one, which `ChildProcess` would otherwise add).
    private func labByHand(_ arguments: [String], handshake: String) throws -> ChildRun {
        try ChildProcess.run(
            ChildSpec(
                executable: BuiltProducts.executable("lab"), arguments: arguments,
                environment: [ChildLifeline.parentVariable: handshake, "SWIFT_BACKTRACE": "enable=no"],
                budget: 20))
    }

    func testChildTrialsTypedByAUserAreRefused() throws {
        let cases: [[String]] = [
            ["runloop", "--child-variant", "sync-semaphore-main", "--quick"],
            ["callback", "--child-variant", "async-double"],
            ["bench-child"],
        ]
        for arguments in cases {
            for handshake in ["", "1", "not-a-pid"] {
                let run = try labByHand(arguments, handshake: handshake)
                XCTAssertEqual(
                    run.exitCode, 64, "\(arguments) with '\(handshake)': \(run.evidence) \(run.stderr.prefix(300))")
                XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)
                XCTAssertTrue(run.stderr.contains("internal"), run.stderr)
                XCTAssertNil(run.resultPayload, "no trial ran")
            }
        }
    }

    func testTheLabsOwnChildrenStillRun() throws {
        let run = try ChildProcess.run(
            ChildSpec(executable: BuiltProducts.executable("lab"), arguments: ["bench-child"], budget: 20))
        XCTAssertEqual(run.exitCode, 0, run.stderr)
        XCTAssertNotNil(run.resultPayload)
    }
}
