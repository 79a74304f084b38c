import Foundation
import LabHarness
import LabHarnessXCTest
import CallbackExperiment
import XCTest

/// exp-callback's command-line contract, apart from its findings: what `--latency` accepts and
/// what it does. (Every experiment's shared contract, bad flags and `--help`, is checked for all
/// of them at once in `ExperimentContractTests`.)
final class CallbackContractTests: XCTestCase {
    /// A lookup time out of its range or not a number: exit 64 and one line naming the range.
    func testABadLatencyGetsOneLineAndExitSixtyFour() throws {
        for arguments in [["--latency", "0"], ["--latency", "abc"], ["--latency", "11"]] {
            let run = try ChildProcess.run(
                ChildSpec(executable: BuiltProducts.executable("exp-callback"), arguments: arguments, budget: 10))
            XCTAssertEqual(run.exitCode, 64, "\(arguments): \(run.stderr)")
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, "\(arguments): \(run.stderr)")
        }
    }

    /// `--latency` sets the app's lookup time, and the run measures that lookup: the parsed
    /// parameters carry it, the variant reports it, and the claim that the lookup holds the
    /// library's queue for its whole length holds for it.
    func testLatencyFlagSetsTheLookupTime() throws {
        let report = try ExperimentRunner.run(
            callbackExperiment, arguments: ["--quick", "--variant", "sync-return", "--latency", "0.5"],
            executable: BuiltProducts.executable("exp-callback"))
        XCTAssertEqual(report.parameters["latency_s"], .number(0.5))
        XCTAssertEqual(report.variant(CallbackVariant.syncReturn)?[CallbackMetric.latencyS], 0.5)
        let finding = try XCTUnwrap(report.finding("callback.sync-return-blocks-library"))
        XCTAssertTrue(finding.reproduced, finding.summary)
    }
}
