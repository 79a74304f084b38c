import Foundation
import LabHarness
import LabHarnessXCTest
import LabRunner
import XCTest

/// The command-line contract every experiment shares, checked for each one in the catalog
/// through `lab NAME` (the same experiment as `exp-NAME`): bad input gets exit 64 and one line
/// naming the problem, `--help` exits 0 and names every variant a student can pick.
final class ExperimentContractTests: XCTestCase {
    private func lab(_ arguments: [String]) throws -> ChildRun {
        try ChildProcess.run(ChildSpec(executable: BuiltProducts.executable("lab"), arguments: arguments, budget: 10))
    }

    /// An unknown variant, an unknown flag, a trial count out of range: exit 64, exactly one
    /// line on stderr, nothing on stdout, never a trap.
    func testBadFlagsGetOneLineAndExitSixtyFour() throws {
        for entry in LabCatalog.standard.entries {
            for arguments in [
                ["--variant", "no-such-variant"], ["--no-such-flag"], ["--trials", "0"], ["--trials", "many"],
            ] {
                let run = try lab([entry.command] + arguments)
                XCTAssertEqual(run.exitCode, 64, "\(entry.command) \(arguments): \(run.stderr)")
                XCTAssertEqual(
                    run.stderr.split(separator: "\n").count, 1, "\(entry.command) \(arguments): \(run.stderr)")
                XCTAssertTrue(run.stdout.isEmpty, "\(entry.command) \(arguments): \(run.stdout)")
            }
        }
    }

    /// `--help` exits 0 and names every variant and every finding.
    func testHelpNamesEveryVariantAndFinding() throws {
        for entry in LabCatalog.standard.entries {
            let run = try lab([entry.command, "--help"])
            XCTAssertEqual(run.exitCode, 0, run.stderr)
            for variant in entry.definition.variants {
                XCTAssertTrue(
                    run.stdout.contains(variant.name), "\(entry.command): \(variant.name) missing from --help")
            }
            for finding in entry.definition.findings {
                XCTAssertTrue(run.stdout.contains(finding.id), "\(entry.command): \(finding.id) missing from --help")
            }
        }
    }
}
