import LabHarness
import XCTest
@testable import DanceExperiment

/// The release chart draws each owner's time alive to a scale taken from the data and labels
/// it, so a release after microseconds never looks like one after seconds.
final class ReleaseChartTests: XCTestCase {
    func report(_ releases: [(String, Double)]) -> ExperimentReport {
        ExperimentReport(
            experiment: "dance", parameters: [:],
            variants: releases.map { name, seconds in
                VariantReport(
                    name: name, outcome: .completed,
                    metrics: [DanceMetric.released: 1, DanceMetric.releaseAfterScopeS: seconds])
            }, findings: [])
    }

    /// The bar of `name`: its "█" count.
    func bar(_ chart: String, _ name: String) -> Int {
        chart.split(separator: "\n").first { $0.hasPrefix("  " + name + " ") }.map { $0.filter { $0 == "█" }.count }
            ?? -1
    }

    func testAMicrosecondReleaseIsDrawnOnAMicrosecondScale() {
        let short = DanceReport.releaseBars(report([("weak-strong", 6e-6)]), width: 40, columns: 100)
        let long = DanceReport.releaseBars(report([("heap-stack-delayed", 2)]), width: 40, columns: 100)
        XCTAssertTrue(short.contains("scale 0 to 6 µs"), short)
        XCTAssertTrue(short.hasSuffix("6 µs"), short)
        XCTAssertTrue(long.contains("scale 0 to 2 s"), long)
        XCTAssertTrue(long.hasSuffix("2 s"), long)
        // Full bars both, but on axes labelled apart: the charts differ where the unit is.
        XCTAssertNotEqual(
            short.replacingOccurrences(of: "weak-strong", with: "x"),
            long.replacingOccurrences(of: "heap-stack-delayed", with: "x"))
    }

    func testBarsAreToScaleWhenShortAndLongReleasesAreShownTogether() {
        let chart = DanceReport.releaseBars(
            report([("weak-strong", 6e-6), ("heap-stack-delayed", 0.5)]), width: 40, columns: 100)
        XCTAssertTrue(chart.contains("scale 0 to 500 ms"), chart)
        XCTAssertEqual(bar(chart, "weak-strong"), 0, chart)
        XCTAssertEqual(bar(chart, "heap-stack-delayed"), 40, chart)
    }

    func testBarsShrinkToFitANarrowReport() {
        let chart = DanceReport.releaseBars(report([("heap-stack-delayed", 0.5)]), width: 40, columns: 60)
        // The title is prose the report wraps like any line; the bars and their axis are drawn
        // to fit.
        for line in chart.split(separator: "\n").dropFirst() {
            XCTAssertLessThanOrEqual(line.unicodeScalars.count, 60, String(line))
        }
        XCTAssertLessThan(bar(chart, "heap-stack-delayed"), 40, chart)
    }
}
