import Foundation
import LabHarness
import LabHarnessXCTest
import CallbackExperiment
import XCTest

/// exp-callback's command-line contract, apart from its findings: what its flags accept and do, what
/// bad input gets (exit 64 and one line naming the problem), what `--help` prints.
final class CallbackContractTests: XCTestCase {
    private func launch(_ arguments: [String]) throws -> ChildRun {
        try ChildProcess.run(ChildSpec(executable: BuiltProducts.executable("exp-callback"), arguments: arguments, budget: 10))
    }

    /// Bad input: exit 64, exactly one line on stderr, nothing on stdout, never a trap.
    func testBadFlagsGetOneLineAndExitSixtyFour() throws {
        for arguments in [["--latency", "0"], ["--latency", "abc"], ["--latency", "11"], ["--variant", "no-such-variant"], ["--no-such-flag"]] {
            let run = try launch(arguments)
            XCTAssertEqual(run.exitCode, 64, "\(arguments): \(run.stderr)")
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stdout.isEmpty, "\(arguments): \(run.stdout)")
        }
    }

    /// `--help` exits 0 and names every variant a student can pick.
    func testHelpNamesEveryVariant() throws {
        let run = try launch(["--help"])
        XCTAssertEqual(run.exitCode, 0, run.stderr)
        for variant in callbackExperiment.variants { XCTAssertTrue(run.stdout.contains(variant.name), "\(variant.name) missing from --help") }
    }

    /// `--latency` sets the app's lookup time, and the run measures that lookup: with 0.5 s
    /// the library is held about 0.5 s, not some other figure.
    func testLatencyFlagSetsTheLookupTime() throws {
        let report = try ExperimentRunner.run(callbackExperiment, arguments: ["--quick", "--variant", "sync-return", "--latency", "0.5"],
                                              executable: BuiltProducts.executable("exp-callback"))
        XCTAssertEqual(report.parameters["latency_s"], .number(0.5))
        let held = try XCTUnwrap(report.variant(CallbackVariant.syncReturn)?.metrics["library.held_s"])
        XCTAssertGreaterThanOrEqual(held, 0.45)
        XCTAssertLessThan(held, 5, "a 0.5 s lookup, not some other figure")
    }
}
