import Foundation
import LabHarness
import LabHarnessXCTest
import DanceExperiment
import XCTest

/// exp-dance's command-line contract, apart from its findings. (Every experiment's shared
/// contract, bad flags and `--help`, is checked for all of them in `ExperimentContractTests`.)
final class DanceContractTests: XCTestCase {
    /// A delay or grace out of range or not a number: exit 64 and one line naming the range.
    func testBadDelayIsAUsageError() throws {
        for arguments in [["--delay", "0"], ["--delay", "abc"], ["--grace", "-1"], ["--delay", "100"]] {
            let run = try ChildProcess.run(
                ChildSpec(executable: BuiltProducts.executable("exp-dance"), arguments: arguments, budget: 10))
            XCTAssertEqual(run.exitCode, 64, "\(arguments): \(run.stderr)")
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, "\(arguments): \(run.stderr)")
        }
    }
}
