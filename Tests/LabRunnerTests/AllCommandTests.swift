import Foundation
import LabHarness
import LabRunner
import XCTest

final class AllCommandTests: XCTestCase {
    /// `lab all` runs each experiment as a child, collects its report, reaps every process it
    /// started, and exits 0 when every applicable finding reproduced.
    func testRunsEachExperimentInAChildAndReapsIt() throws {
        let (catalog, launcher) = try fixtureSetup()
        let result = AllCommand.run(catalog: catalog, launcher: launcher, quick: true)
        XCTAssertEqual(result.exitStatus, 0, "\(result.document.failures)")
        XCTAssertEqual(result.document.experiments.map(\.experiment), ["fixture"])
        XCTAssertEqual(result.document.experiments.first?.parameters["quick"], .flag(true))
        XCTAssertTrue(result.document.complete)
        XCTAssertTrue(childrenOfThisProcess().isEmpty, "children left: \(childrenOfThisProcess())")
        XCTAssertEqual(ChildProcess.liveCount, 0)

        let table = AllCommand.table(result.document, style: Style(enabled: false))
        XCTAssertTrue(table.contains("fixture     fixture.ok-completes"), table)
        XCTAssertTrue(table.contains("reproduced"))
        XCTAssertTrue(table.contains("fixture.never-applies"))
        XCTAssertTrue(table.contains("3 of 3 findings reproduced in 1 experiments"), table)
    }

    func testAFindingThatDoesNotReproduceMakesTheExitStatusOne() throws {
        let (catalog, launcher) = try fixtureSetup(extra: ["--variant", "ok", "--break"])
        let result = AllCommand.run(catalog: catalog, launcher: launcher, quick: true)
        XCTAssertEqual(result.exitStatus, 1)
        XCTAssertTrue(AllCommand.table(result.document, style: Style(enabled: false)).contains("NOT REPRODUCED"))
    }

    /// A variant that ends with an outcome its declaration forbids fails `lab all` too, even
    /// when every finding reproduced and no finding reads that variant; the table names it.
    func testAForbiddenOutcomeMakesTheExitStatusOneAndIsNamed() throws {
        let (catalog, launcher) = try fixtureSetup(extra: ["--variant", "ok,forbidden"])
        let result = AllCommand.run(catalog: catalog, launcher: launcher, quick: true)
        XCTAssertEqual(result.exitStatus, 1)
        XCTAssertTrue(result.document.experiments.allSatisfy(\.allReproduced))
        let table = AllCommand.table(result.document, style: Style(enabled: false))
        XCTAssertTrue(table.contains("forbidden outcome: fixture forbidden ended failed"), table)
    }

    /// An experiment that crashes leaves no report: the run is incomplete, the failure is in
    /// the table with its evidence, and the exit status is 1.
    func testAnExperimentThatLeavesNoReportIsAFailure() throws {
        let (catalog, launcher) = try fixtureSetup(extra: ["trap"])
        let result = AllCommand.run(catalog: catalog, launcher: launcher, quick: true)
        XCTAssertEqual(result.exitStatus, 1)
        XCTAssertFalse(result.document.complete)
        XCTAssertEqual(result.document.failures.first?.outcome, "crashed")
        XCTAssertTrue(
            result.document.failures.first?.evidence.contains("Fatal error") ?? false, "\(result.document.failures)")
        XCTAssertTrue(AllCommand.table(result.document, style: Style(enabled: false)).contains("(no report)"))
    }

    func testTheTableFitsAWidth() {
        let table = AllCommand.table(sampleDocument(), style: Style(enabled: false), width: 80)
        for line in table.split(separator: "\n") where line.contains(".") && !line.contains("findings reproduced") {
            XCTAssertLessThanOrEqual(line.count, 100, String(line))
        }
    }
}
