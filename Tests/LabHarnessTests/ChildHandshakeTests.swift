import Foundation
import LabHarness
import XCTest

/// `ExperimentMain` runs a child trial (`--child-variant`) only in a process the harness started
/// itself; typed by hand it is refused with one line and exit 64. Tested through the fixture
/// experiment, as a library author's experiment would see it.
final class ChildHandshakeTests: XCTestCase {
    func testAChildTrialStartedByHandIsRefused() throws {
        // A wrong or empty handshake stands in for an absent one (ChildProcess always adds it).
        for handshake in ["", "1", "garbage", String(getpid() + 1)] {
            let run = try ChildProcess.run(
                ChildSpec(
                    executable: fixture(), arguments: ["--child-variant", "hang"],
                    environment: [ChildLifeline.parentVariable: handshake], budget: 20))
            XCTAssertEqual(run.exitCode, 64, "'\(handshake)': \(run.evidence) \(run.stderr)")
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)
            XCTAssertTrue(run.stderr.contains("--child-variant is internal"), run.stderr)
            XCTAssertNil(run.resultPayload)
            XCTAssertLessThan(run.wall, 10, "refused at once, not after the hang")
        }
    }

    func testAChildTrialStartedByTheHarnessRuns() throws {
        let run = try ChildProcess.run(
            ChildSpec(executable: fixture(), arguments: ["--child-variant", "ok"], budget: 20))
        XCTAssertEqual(run.exitCode, 0, run.stderr)
        XCTAssertNotNil(run.resultPayload, "the trial reported its result")
    }
}
