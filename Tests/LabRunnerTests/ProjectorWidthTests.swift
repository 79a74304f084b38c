import Foundation
import LabHarness
import LabHarnessXCTest
import LabRunner
import XCTest

/// What an instructor projects fits the projector: every experiment's `--quick` report, as its
/// own executable prints it, stays within `COLUMNS` columns on every line.
final class ProjectorWidthTests: XCTestCase {
    /// Columns a line takes on a terminal: ANSI colour codes take none, each other Unicode
    /// scalar (outside combining marks) one.
    static func columns(_ line: Substring) -> Int {
        let plain = line.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
        return plain.unicodeScalars.filter { $0.properties.generalCategory != .nonspacingMark }.count
    }

    /// Every experiment's `--quick` report at 100 columns: each is drawn from its report in the
    /// shared `lab all --quick` run, by the same renderer its executable prints with; one
    /// executable (the quickest) is also run with `COLUMNS` set, to see that it is honoured.
    func testEveryExperimentsQuickReportFitsAHundredColumns() throws {
        let document = try QuickLabAll.shared.get().document
        var reports: [(String, String)] = []
        for entry in LabCatalog.standard.entries {
            guard let report = document.experiments.first(where: { $0.experiment == entry.definition.name }) else {
                XCTFail("\(entry.command): no report in lab all --quick"); continue
            }
            reports.append(
                (
                    entry.command,
                    HumanReport.render(report, definition: entry.definition, style: Style(enabled: true), width: 100)
                ))
        }
        let run = try ChildProcess.run(
            ChildSpec(
                executable: BuiltProducts.executable("lab"), arguments: ["dance", "--quick"],
                environment: ["COLUMNS": "100", "SWIFT_BACKTRACE": "enable=no"], budget: 60))
        XCTAssertTrue(run.exitCode == 0 || run.exitCode == 1, "dance --quick: \(run.outcome) \(run.evidence)")
        reports.append(("dance (its executable)", run.stdout))
        for (name, report) in reports {
            XCTAssertTrue(report.contains("findings reproduced"), "\(name) printed no report:\n\(report)")
            for line in report.split(separator: "\n") {
                XCTAssertLessThanOrEqual(Self.columns(line), 100, "\(name): \(line)")
            }
        }
    }

    /// Down to 80 columns; narrower, a finding id (one word of up to 42 columns beside its
    /// experiment and verdict) and the 56-column charts overflow rather than break.
    func testLabAllsTableAndChartsFitTheWidthTheyAreGiven() {
        let document = sampleDocument()
        for width in [100, 80] {
            let text =
                AllCommand.table(document, style: Style(enabled: true), width: width)
                + AllCommand.charts(document, catalog: LabCatalog.standard, style: Style(enabled: true), width: width)
            for line in text.split(separator: "\n") {
                XCTAssertLessThanOrEqual(Self.columns(line), width, "at \(width): \(line)")
            }
        }
    }

    func testLabAllChartsPrintEachExperimentsOwnSections() {
        let document = sampleDocument()
        let charts = AllCommand.charts(document, catalog: LabCatalog.standard, style: Style(enabled: false), width: 100)
        // The dance report in the sample has events, so its event list and release chart draw.
        XCTAssertTrue(charts.contains("exp-dance:"), charts)
        XCTAssertTrue(charts.contains("events (t since the variant started)"), charts)
        XCTAssertTrue(charts.contains("completion1 2.00 s"), charts)
    }
}
