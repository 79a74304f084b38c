import Foundation
import CLabSupport
import LabHarness
import XCTest

final class ReportTests: XCTestCase {
    private func sampleReport() -> ExperimentReport {
        var metrics = Metrics()
        metrics["total"] = 300
        metrics["completed"] = 0
        metrics["threads.peak"] = 25
        metrics["wait.p99_s"] = 9.000000123
        return ExperimentReport(
            experiment: "runloop", platform: PlatformInfo(os: "linux", cpus: 2, swift: "6.3.1"),
            parameters: ["tasks": .number(300), "timeout_s": .number(1), "caller": .text("global")],
            variants: [VariantReport(name: "global-queue", outcome: .deadlock, grade: .expected, metrics: metrics)],
            findings: [
                FindingReport(
                    id: "runloop.global-queue-misses-timeouts", applicable: true, reproduced: true,
                    summary: "0 of 300")
            ])
    }

    /// Schema 1 as the README shows it, with keys sorted so the same run gives the same bytes.
    func testSchemaOneJSON() throws {
        let data = try sampleReport().jsonData(pretty: false)
        let text = String(decoding: data, as: UTF8.self)
        XCTAssertTrue(
            text.hasPrefix(
                #"{"experiment":"runloop","findings":[{"applicable":true,"id":"runloop.global-queue-misses-timeouts""#),
            text)
        XCTAssertTrue(text.contains(#""schema":1"#))
        XCTAssertTrue(text.contains(#""metrics":{"completed":0,"threads.peak":25,"total":300,"wait.p99_s":9}"#), text)
        XCTAssertTrue(text.contains(#""platform":{"cpus":2,"os":"linux","swift":"6.3.1"}"#), text)
        XCTAssertTrue(text.contains(#""parameters":{"caller":"global","tasks":300,"timeout_s":1}"#), text)

        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        XCTAssertEqual(Set(object.keys), ["schema", "experiment", "platform", "parameters", "variants", "findings"])
        XCTAssertEqual(try ExperimentReport.decode(data), sampleReport(), "decodes to what was encoded")
        XCTAssertEqual(try sampleReport().jsonData(), try sampleReport().jsonData(), "stable bytes")
    }

    func testMetricsRoundKeepOrderAndRefuseNonFinite() {
        var m = Metrics()
        m["b"] = 0.1 + 0.2
        m["a"] = 1.0 / 3.0
        m["c"] = .nan
        m["d"] = 123456789.4
        XCTAssertEqual(m.names, ["b", "a", "d"])
        XCTAssertEqual(m["b"], 0.3)
        XCTAssertEqual(m["a"], 0.333333)
        XCTAssertEqual(m["d"], 123457000)
        XCTAssertNil(m["c"])
        m["b"] = .infinity
        XCTAssertEqual(m.names, ["a", "d"])
    }

    func testHumanReportAlignsTheTableAndNamesEveryFinding() {
        let definition = ExperimentDefinition(
            name: "runloop", executable: "exp-runloop", question: "Do timeouts fire?", about: "",
            flags: [.integer("tasks", default: 300, range: 1...5000, help: "")],
            variants: [
                Variant(
                    "global-queue", summary: "", expect: [OutcomeExpectation(.deadlock, .expected, "")],
                    claim: Claim("runloop.global-queue-misses-timeouts", "")
                ) { _ in
                    VariantRecord(outcome: .deadlock, mechanism: .seen("callers seen blocked"))
                }
            ],
            findings: [],
            columns: [
                .ratio("done", "completed", of: "total"), .count("threads", "threads.peak"),
                .seconds("wait p99", "wait.p99_s"),
            ])
        let text = HumanReport.render(
            sampleReport(), definition: definition, elapsed: 3.2, style: Style(enabled: false))
        XCTAssertFalse(text.contains("\u{1B}"), "no escape codes without colour")
        let table = text.split(separator: "\n").filter { $0.hasPrefix("  variant") || $0.hasPrefix("  global-queue") }
        XCTAssertEqual(table.count, 2)
        XCTAssertEqual(Set(table.map { $0.count }).count, 1, "aligned: \(table)")
        XCTAssertTrue(text.contains("0/300"))
        XCTAssertTrue(text.contains("9.00 s"))
        XCTAssertTrue(text.contains("✓ runloop.global-queue-misses-timeouts  reproduced  0 of 300"))
        XCTAssertTrue(text.contains("1 of 1 findings reproduced in 3.20 s"))
        let coloured = HumanReport.render(sampleReport(), definition: definition, style: Style(enabled: true))
        XCTAssertTrue(coloured.contains("\u{1B}[32m"))
    }

    /// Colour only on a terminal, and never with NO_COLOR set: checked on a real pseudo-terminal.
    func testColourOnlyOnATerminalAndNeverWithNoColor() throws {
        try XCTSkipUnless(PlatformInfo.current.isLinux, "checked on a Linux pseudo-terminal only")
        var primary: Int32 = -1, slave: Int32 = -1
        XCTAssertEqual(clab_open_pseudo_terminal(&primary, &slave), 0, "a pseudo-terminal")
        defer { close(primary); close(slave) }
        XCTAssertTrue(Terminal.colourAllowed(fd: slave, environment: [:]))
        XCTAssertFalse(Terminal.colourAllowed(fd: slave, environment: ["NO_COLOR": "1"]))
        XCTAssertFalse(Terminal.colourAllowed(fd: slave, environment: ["TERM": "dumb"]))
        var pipeFDs: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&pipeFDs), 0)
        XCTAssertFalse(Terminal.colourAllowed(fd: pipeFDs[1], environment: [:]))
        close(pipeFDs[0]); close(pipeFDs[1])
    }

    func testTextChartHasOneRowPerLevelAndTheAxis() {
        let points = (0..<20).map { (x: Double($0), y: Double($0 < 10 ? 3 : 30)) }
        let rows = TextChart.timeline(points, width: 20, height: 4, fromZero: true)
        XCTAssertEqual(rows.count, 5)
        XCTAssertTrue(rows[0].hasPrefix("30 ┤"))
        XCTAssertTrue(rows[3].hasPrefix(" 0 ┤"))
        let scaled = TextChart.timeline(points, width: 20, height: 4)
        XCTAssertTrue(scaled[3].hasPrefix(" 3 ┤"), "by default the axis starts at the lowest value: \(scaled)")
        let top = Array(scaled[0].drop { $0 != "┤" }.dropFirst())
        XCTAssertEqual(
            String(top.prefix(10)), String(repeating: " ", count: 10),
            "the low first half leaves the top row empty: \(scaled)")
        XCTAssertEqual(
            String(top.suffix(10)), String(repeating: "█", count: 10), "the high second half fills it: \(scaled)")
        XCTAssertTrue(rows[0].hasSuffix("██████████"), rows[0])
        XCTAssertTrue(rows[4].contains("0 s") && rows[4].contains("19 s"))
        XCTAssertEqual(TextChart.timeline([]), [])
    }
}
