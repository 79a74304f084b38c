import Foundation
@testable import LabHarness
import LabHarnessXCTest
@testable import LabRunner
import XCTest

/// The smaller promises of a hostile machine's report: no escapes for `TERM=dumb`, `lab bench`
/// inside the width, an estimate before many trials.
final class SmallItemsTests: XCTestCase {
    func testDumbTerminalGetsNoEscapeSequence() {
        XCTAssertFalse(Terminal.escapesAllowed(environment: ["TERM": "dumb"]))
        XCTAssertTrue(Terminal.escapesAllowed(environment: ["TERM": "xterm-256color"]))
        let line = ProgressLine(enabled: true, escapes: Terminal.escapesAllowed(environment: ["TERM": "dumb"])) { "" }
        let erase = line.erase(width: 30)
        XCTAssertFalse(erase.contains("\u{1B}"), "no escape sequence")
        XCTAssertEqual(
            erase, "\r" + String(repeating: " ", count: 30) + "\r", "the line is overwritten with spaces instead")
        XCTAssertTrue(ProgressLine(enabled: true, escapes: true) { "" }.erase(width: 30).contains("\u{1B}[2K"))
    }

    func testBenchWrapsToTheWidth() {
        let long = String(repeating: "what this figure measures and why it matters ", count: 5)
        let result = BenchCommand.Result(
            optimized: false,
            figures: [
                BenchCommand.Figure(
                    name: "child spawn to result (p50)", value: 12.5, unit: "ms", target: "under 50 ms", met: true,
                    detail: long),
                BenchCommand.Figure(
                    name: "thread census of 256 threads", value: 0.8, unit: "ms", target: nil, met: nil, detail: long),
            ])
        for width in [40, 60, 100] {
            let lines = BenchCommand.render(result, style: Style(enabled: false), width: width).split(separator: "\n")
            for line in lines { XCTAssertLessThanOrEqual(displayWidth(String(line)), width, "\(width): \(line)") }
            XCTAssertTrue(lines.joined().contains("12.5"), "nothing lost")
        }
    }

    func testManyTrialsSayHowLongFirst() throws {
        let run = try ChildProcess.run(
            ChildSpec(
                executable: try BuiltProducts.executable("lab-fixture"),
                arguments: ["--variant", "ok", "--trials", "3", "--hold", "0.05"], budget: 60))
        let first = run.stderr.split(separator: "\n").first.map(String.init) ?? ""
        XCTAssertTrue(first.contains("3 trials (3 of each of 1 variants) will take about"), run.stderr)
        let single = try ChildProcess.run(
            ChildSpec(
                executable: try BuiltProducts.executable("lab-fixture"),
                arguments: ["--variant", "ok", "--hold", "0.05"], budget: 60))
        XCTAssertFalse(single.stderr.contains("will take about"), "one trial needs no estimate")
    }

    func testPagesSayNotJudgedNotNotReproduced() {
        var document = sampleDocument()
        document.experiments[0].findings[0] = FindingReport(
            id: "pool.global-queue-is-bounded", applicable: true, reproduced: false,
            summary: "not judged (global-flood ended resource-limited): the machine",
            notJudgedReason: .machineOutcome)
        let html = HTMLPage.render(document, catalog: LabCatalog([]), source: "r.json")
        let markdown = MarkdownPage.render(document, catalog: LabCatalog([]), source: "r.json")
        XCTAssertTrue(html.contains("<span class=\"na\">not judged</span>"), html)
        XCTAssertTrue(markdown.contains("not judged"))
        let table = AllCommand.table(document, style: Style(enabled: false), width: 200)
        XCTAssertTrue(table.contains("NOT JUDGED"), table)
        XCTAssertTrue(table.contains("1 not judged"), table)
    }
}
