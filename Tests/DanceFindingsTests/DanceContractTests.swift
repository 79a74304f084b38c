import Foundation
import LabHarness
import LabHarnessXCTest
import DanceExperiment
import XCTest

/// exp-dance's command-line contract, apart from its findings: what its flags accept and do, what
/// bad input gets (exit 64 and one line naming the problem), what `--help` prints.
final class DanceContractTests: XCTestCase {
    private func launch(_ arguments: [String]) throws -> ChildRun {
        try ChildProcess.run(ChildSpec(executable: BuiltProducts.executable("exp-dance"), arguments: arguments, budget: 10))
    }

    /// Bad input: exit 64, exactly one line on stderr, nothing on stdout, never a trap.
    func testBadFlagsGetOneLineAndExitSixtyFour() throws {
        for arguments in [["--delay", "0"], ["--delay", "abc"], ["--grace", "-1"], ["--delay", "100"], ["--variant", "no-such-variant"], ["--no-such-flag"]] {
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
        for variant in danceExperiment.variants { XCTAssertTrue(run.stdout.contains(variant.name), "\(variant.name) missing from --help") }
    }
}
