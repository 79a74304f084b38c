import Foundation
import LabHarness
import LabRunner
import XCTest

/// A report with a `sweep` array gets a log-log chart (one line per design) and a table of its
/// points on both pages; a sweep's names and numbers come from an untrusted file, so they are
/// escaped and an absurd value does not break the axes.
final class SweepPageTests: XCTestCase {
    /// A runloop report whose sweep holds two honest designs and one with a hostile name and
    /// an absurd lateness.
    func sweepDocument() -> LabDocument {
        let platform = PlatformInfo(os: "linux", cpus: 2, swift: "6.3.1")
        var points: [SweepPoint] = []
        for (design, base) in [("shared-thread", 0.3), ("deadline-heap", 0.2), ("<odd & design>", 1e300)] {
            for (step, tasks) in [10, 1000, 100_000].enumerated() {
                points.append(
                    SweepPoint(
                        variant: design, size: tasks,
                        metrics: [
                            "lateness.p99_ms": base * pow(10, design == "shared-thread" ? Double(step) : 0),
                            "wall_per_timeout": 1.01, "threads.added": 1,
                        ]))
            }
        }
        let report = ExperimentReport(
            experiment: "runloop", platform: platform, parameters: ["sweep": .text("10,1000,100000")],
            variants: [VariantReport(name: "sweep", outcome: .completed, grade: .expected)],
            findings: [], sweep: points)
        return LabDocument(
            platform: platform, complete: true, quick: false, elapsedSeconds: 20, experiments: [report], failures: [])
    }

    /// Three designs at three counts: the chart has three lines, the escaped name, no value
    /// off the scale; both pages list every point.
    func testASweepIsDrawnOnLogAxesAndTabulated() throws {
        let directory = try temporaryDirectory("sweep-page")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("results.json")
        try sweepDocument().jsonData().write(to: file)
        let written = try ReportCommand.run(
            from: file.path, to: directory.appendingPathComponent("out").path, catalog: LabCatalog([]))

        let chart = try XCTUnwrap(
            written.charts.first { $0.lastPathComponent == "runloop-sweep.svg" }, "\(written.charts)")
        let svg = try String(contentsOf: chart, encoding: .utf8)
        XCTAssertNil(XMLCheck.parse(svg).error, "a valid standalone SVG")
        XCTAssertEqual(svg.components(separatedBy: "<polyline").count - 1, 3, "one line per design")
        XCTAssertTrue(svg.contains("&lt;odd &amp; design&gt;"), "names are escaped")
        XCTAssertFalse(
            svg.contains("nan") || svg.contains("inf"), "an absurd value is clamped, not drawn off the scale")

        let markdown = try String(contentsOf: written.markdown, encoding: .utf8)
        XCTAssertTrue(
            markdown.contains("| `deadline-heap` | 100,000 |") || markdown.contains("| `deadline-heap` | 100000 |"),
            markdown)
        let html = try String(contentsOf: written.index, encoding: .utf8)
        XCTAssertTrue(html.contains("<h3>Sweep:"), "the HTML page has the table too")
    }
}
