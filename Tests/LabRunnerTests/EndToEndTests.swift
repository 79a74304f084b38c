import Foundation
import LabHarness
import LabHarnessXCTest
import LabRunner
import XCTest

/// `lab all --quick --json FILE` then `lab report`, with the real experiments hosted by `lab`
/// (the run is `QuickLabAll`'s, shared with the projector's test).
///
/// Whether each finding reproduces is each experiment's own tests' business (they use trials
/// and margins for that); this test checks what must hold whatever the machine's load: every
/// experiment reports, no variant fails to run (the outcome launch and harness errors get),
/// every declared finding is there, the exit status agrees with the verdicts, and the report
/// draws a chart for every experiment with data to draw.
final class EndToEndTests: XCTestCase {
    func testLabAllQuickThenReport() throws {
        let lab = try BuiltProducts.executable("lab")
        let directory = try temporaryDirectory("end-to-end")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("results.json")

        let all = try QuickLabAll.shared.get()
        let run = all.run, document = all.document
        try all.data.write(to: file)
        XCTAssertTrue(document.complete, "\(document.failures)")
        XCTAssertEqual(document.experiments.map(\.experiment), LabCatalog.standard.entries.map(\.definition.name))
        for report in document.experiments {
            let definition = try XCTUnwrap(LabCatalog.standard.entry(named: report.experiment)?.definition)
            // The claims of the variants the default plan runs, then every finding whose variants
            // it runs (a sweep's findings need --sweep).
            let options = try definition.parser.parse(["--quick"])
            let plan = Set(definition.plan(options, try definition.parameters(options)))
            let claims = definition.variants.filter { plan.contains($0.name) }.compactMap(\.claim?.id)
            XCTAssertEqual(
                report.findings.map(\.id),
                claims + definition.findings.filter { $0.needs.allSatisfy(plan.contains) }.map(\.id),
                report.experiment)
            for variant in report.variants {
                XCTAssertNotEqual(
                    variant.outcome, .failed, "\(report.experiment) \(variant.name): \(variant.evidence ?? "")")
            }
        }
        let allReproduced = document.experiments.allSatisfy(\.allReproduced)
        XCTAssertEqual(run.exitCode, allReproduced ? 0 : 1, run.stdout)
        XCTAssertTrue(childrenOfThisProcess().isEmpty)

        let out = directory.appendingPathComponent("site")
        let report = try ChildProcess.run(
            ChildSpec(executable: lab, arguments: ["report", "--from", file.path, "--out", out.path], budget: 60))
        XCTAssertEqual(report.exitCode, 0, report.stderr)
        let charts = try FileManager.default.contentsOfDirectory(atPath: out.appendingPathComponent("charts").path)
        for experiment in ["runloop", "pool", "dance", "callback"] {
            XCTAssertTrue(charts.contains { $0.hasPrefix(experiment + "-") }, "no chart for \(experiment): \(charts)")
        }
        for chart in charts {
            let text = try String(
                contentsOf: out.appendingPathComponent("charts").appendingPathComponent(chart), encoding: .utf8)
            XCTAssertNil(XMLCheck.parse(text).error, chart)
        }
    }
}
