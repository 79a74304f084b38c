import Foundation
import LabFixtureKit
import LabHarness
import LabHarnessXCTest
import LabRunner
import XCTest

/// `lab report` given well-formed JSON that a careless or hostile writer produced: numbers no
/// chart can draw, names that look like paths, markup in names, input and output that clash.
/// Each is rendered safely or refused with one line and exit 64; nothing traps, and nothing is
/// written outside `--out`.
final class HostileReportTests: XCTestCase {
    private func lab(_ arguments: [String], budget: Double = 60) throws -> ChildRun {
        try ChildProcess.run(
            ChildSpec(
                executable: BuiltProducts.executable("lab"), arguments: arguments,
                environment: ["SWIFT_BACKTRACE": "enable=no"], budget: budget))
    }

    /// Writes `document` into a fresh directory and runs `lab report` on it into `site/`.
    private func report(_ document: LabDocument, name: String) throws -> (URL, ChildRun) {
        let directory = try temporaryDirectory(name)
        let file = directory.appendingPathComponent("results.json")
        try document.jsonData().write(to: file)
        let run = try lab(["report", "--from", file.path, "--out", directory.appendingPathComponent("site").path])
        return (directory, run)
    }

    func testNumbersNoChartCanDrawAreRefusedWithTheirKeyNotTrapped() throws {
        let cases: [(String, (inout LabDocument) -> Void)] = [
            ("elapsed_s", { $0.elapsedSeconds = 1e20 }),
            ("elapsed_s", { $0.elapsedSeconds = -1e300 }),
            ("total", { $0.experiments[1].variants[1].metrics[FixtureMetric.total] = 1e300 }),
            ("threads", { $0.experiments[0].variants[0].series?["threads"]?[3] = [1, 1e30] }),
            ("lateness_ms", { $0.experiments[1].variants[1].series?["lateness_ms"]?[0] = [0, -1e300] }),
            ("t", { $0.experiments[2].variants[1].events?[2] = TimedEvent(t: 1e25, label: "completion1") }),
        ]
        for (key, change) in cases {
            var document = sampleDocument()
            change(&document)
            let (directory, run) = try report(document, name: "numbers")
            defer { try? FileManager.default.removeItem(at: directory) }
            XCTAssertEqual(run.exitCode, 64, "\(key): \(run.evidence) \(run.stderr)")
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, "\(key): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains(key), "the message names the key: \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("out of range"), run.stderr)
        }
    }

    func testNamesThatLookLikePathsStayInsideTheOutputDirectory() throws {
        var document = sampleDocument()
        document.experiments[0].experiment = "../../../PWNED"
        document.experiments[1].experiment = "a/b"
        document.experiments[2].experiment = "/etc/passwd"
        let (directory, run) = try report(document, name: "paths")
        defer { try? FileManager.default.removeItem(at: directory) }
        XCTAssertEqual(run.exitCode, 0, run.stderr)
        let site = directory.appendingPathComponent("site")
        let everything = FileManager.default.enumerator(atPath: directory.path)?.compactMap { $0 as? String } ?? []
        XCTAssertEqual(
            Set(everything.filter { !$0.hasPrefix("site") }), ["results.json"], "nothing outside --out: \(everything)")
        let charts = try FileManager.default.contentsOfDirectory(atPath: site.appendingPathComponent("charts").path)
        XCTAssertFalse(charts.isEmpty)
        for chart in charts {
            XCTAssertNil(
                chart.first { !($0.isLetter && $0.isASCII) && !$0.isNumber && !"-_.".contains($0) },
                "a safe slug: \(chart)")
        }
        XCTAssertFalse(
            FileManager.default.fileExists(
                atPath: directory.deletingLastPathComponent().appendingPathComponent("PWNED-threads.svg").path))
    }

    func testMarkupAndControlCharactersInNamesAreEscapedInBothPages() throws {
        var document = sampleDocument()
        document.experiments[0].experiment = "<script>alert(1)</script>"
        document.experiments[0].variants[0].name = "line\nbreak\u{0}nul | pipe `tick` <b>bold</b>"
        document.experiments[0].findings[0].summary = "<img src=x onerror=alert(1)>"
        document.experiments[1].variants[0].name = String(repeating: "x", count: 100_000)
        let (directory, run) = try report(document, name: "markup")
        defer { try? FileManager.default.removeItem(at: directory) }
        XCTAssertEqual(run.exitCode, 0, run.stderr)
        let site = directory.appendingPathComponent("site")
        let html = try String(contentsOf: site.appendingPathComponent("index.html"), encoding: .utf8)
        let markdown = try String(contentsOf: site.appendingPathComponent("results.md"), encoding: .utf8)
        for page in [html, markdown] {
            XCTAssertFalse(page.contains("<script>"), "raw markup from a name")
            XCTAssertFalse(page.contains("<img"), "raw markup from a summary")
            XCTAssertFalse(page.contains("<b>"), "raw markup from a variant name")
            XCTAssertFalse(page.contains("\u{0}"))
        }
        XCTAssertFalse(markdown.contains("line\nbreak"), "a newline in a name must not break the Markdown table")
    }

    func testAnInputInsideTheOutputDirectoryIsNeverOverwritten() throws {
        let directory = try temporaryDirectory("clash")
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("index.html")
        let bytes = try sampleDocument().jsonData()
        try bytes.write(to: input)
        let run = try lab(["report", "--from", input.path, "--out", directory.path])
        XCTAssertEqual(run.exitCode, 64, run.stderr)
        XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)
        XCTAssertEqual(try Data(contentsOf: input), bytes, "the input is untouched")
    }

    func testDeepNestingIsRefusedNotACrash() throws {
        let directory = try temporaryDirectory("nesting")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("deep.json")
        let depth = 200_000
        try Data(
            (#"{"kind":"runloop-lab.results","schema":1,"x":"# + String(repeating: "[", count: depth)
                + String(repeating: "]", count: depth) + "}").utf8
        ).write(to: file)
        let run = try lab(["report", "--from", file.path, "--out", directory.appendingPathComponent("site").path])
        XCTAssertEqual(run.exitCode, 64, "\(run.evidence) \(run.stderr.prefix(300))")
        XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, String(run.stderr.prefix(300)))
    }

    func testNumbersJSONCannotHoldAreRefused() throws {
        let directory = try temporaryDirectory("nonfinite")
        defer { try? FileManager.default.removeItem(at: directory) }
        var document = sampleDocument()
        document.experiments[0].variants[0].metrics["marker"] = 987_654
        let text = String(decoding: try document.jsonData(), as: UTF8.self)
        XCTAssertTrue(text.contains("987654"))
        for literal in ["1e400", "-1e400", "NaN", "Infinity", "-Infinity", "1e-400"] {
            let file = directory.appendingPathComponent("n.json")
            try Data(text.replacingOccurrences(of: "987654", with: literal).utf8).write(to: file)
            let run = try lab(["report", "--from", file.path, "--out", directory.appendingPathComponent("site").path])
            XCTAssertTrue(run.exitCode == 64 || run.exitCode == 0, "\(literal): \(run.evidence) \(run.stderr)")
            XCTAssertFalse(run.stderr.contains("Fatal error"), literal)
            if run.exitCode == 64 { XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr) }
        }
    }

    /// Hundreds of thousands of points are read and drawn at what a screen can show: the page
    /// stays small.
    func testAHugeSeriesIsDownsampledToWhatAScreenCanShow() throws {
        let directory = try temporaryDirectory("huge")
        defer { try? FileManager.default.removeItem(at: directory) }
        var document = sampleDocument()
        let count = 200_000
        // Markers replaced by generated text: encoding a million arrays would be slow here.
        document.experiments[0].variants[0].series?["threads"] = [[-7777, -7777]]
        document.experiments[1].variants[1].series?["lateness_ms"] = [[-8888, -8888]]
        document.experiments[1].variants[1].metrics[FixtureMetric.total] = Double(count)
        var text = String(decoding: try ExperimentReport.encoder().encode(document), as: UTF8.self)
        func points(_ value: (Int) -> Int) -> String {
            var out = "["
            out.reserveCapacity(count * 16)
            for i in 0..<count { out += (i == 0 ? "[" : ",[") + String(i) + "e-3," + String(value(i)) + "]" }
            return out + "]"
        }
        text = text.replacingOccurrences(of: "[[-7777,-7777]]", with: points { $0 % 500 })
        text = text.replacingOccurrences(of: "[[-8888,-8888]]", with: points { $0 % 9000 + 1 })
        let file = directory.appendingPathComponent("huge.json")
        try Data(text.utf8).write(to: file)
        let site = directory.appendingPathComponent("site")
        let run = try lab(["report", "--from", file.path, "--out", site.path], budget: 120)
        XCTAssertEqual(run.exitCode, 0, "\(run.evidence) \(run.stderr)")
        let size =
            (try FileManager.default.attributesOfItem(atPath: site.appendingPathComponent("index.html").path)[.size]
                as? Int) ?? .max
        XCTAssertLessThan(size, 4 << 20, "index.html of \(size) bytes for \(count)-point series")
        let lateness = try String(
            contentsOf: site.appendingPathComponent("charts/runloop-lateness.svg"), encoding: .utf8)
        XCTAssertTrue(lateness.contains("\(count)"), "the chart says how many items there were")
    }
}
