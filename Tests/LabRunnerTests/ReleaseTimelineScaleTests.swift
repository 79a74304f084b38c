import Foundation
import LabHarness
import LabRunner
import XCTest

/// `lab report`'s event and release timeline labels its time axis in the unit its events need:
/// a run of microsecond releases reads in µs, not as fractions of a second.
final class ReleaseTimelineScaleTests: XCTestCase {
    func eventsChart(_ events: [TimedEvent]) throws -> String {
        let dance = ExperimentReport(
            experiment: "dance", platform: PlatformInfo(os: "linux", cpus: 2, swift: "6.3.1"), parameters: [:],
            variants: [VariantReport(name: "weak-strong", outcome: .completed, events: events)],
            findings: [FindingReport(id: "dance.weak-strong-releases", applicable: true, reproduced: true, summary: "")]
        )
        let document = LabDocument(complete: true, quick: true, elapsedSeconds: 1, experiments: [dance], failures: [])
        let directory = try temporaryDirectory("timeline-scale")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("results.json")
        try document.jsonData().write(to: file)
        let written = try ReportCommand.run(
            from: file.path, to: directory.appendingPathComponent("out").path, catalog: LabCatalog([]))
        let chart = try XCTUnwrap(written.charts.first { $0.lastPathComponent == "dance-events.svg" })
        return try String(contentsOf: chart, encoding: .utf8)
    }

    func testMicrosecondEventsAreLabelledInMicroseconds() throws {
        let svg = try eventsChart([
            TimedEvent(t: 0.000004, label: "scope-end"), TimedEvent(t: 0.000006, label: "deinit"),
        ])
        XCTAssertTrue(svg.contains(" µs<"), "ticks in µs")
        XCTAssertFalse(svg.contains(" s<"), "no tick in seconds")
    }

    func testSecondsStayInSeconds() throws {
        let svg = try eventsChart([TimedEvent(t: 0.001, label: "scope-end"), TimedEvent(t: 2, label: "deinit")])
        XCTAssertTrue(svg.contains(" s<"), "ticks in s")
        XCTAssertFalse(svg.contains(" µs<"))
    }
}
