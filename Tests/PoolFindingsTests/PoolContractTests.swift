import Foundation
import LabHarness
import LabHarnessXCTest
import PoolExperiment
import XCTest

/// exp-pool's command-line contract, apart from its findings: which variants a plain run and
/// `--find-cap` plan. (Every experiment's shared contract, bad flags and `--help`, is checked
/// for all of them in `ExperimentContractTests`.)
final class PoolContractTests: XCTestCase {
    /// The cap search takes minutes, so it runs only when asked for.
    func testFindCapIsNotInTheDefaultRun() throws {
        let plain = try poolExperiment.parser.parse([])
        XCTAssertEqual(
            poolExperiment.defaultPlan(plain, poolExperiment.variants),
            [
                "global-flood", "gated", "serial-queue", "non-blocking", "cooperative-blocking", "cooperative-sleep",
                "main-thread",
            ])
        XCTAssertFalse(plain.bool("find-cap"))
        let capped = try poolExperiment.parser.parse(["--find-cap"])
        XCTAssertEqual(poolExperiment.defaultPlan(capped, poolExperiment.variants), ["global-flood"])
    }
}
