import Foundation
import CLabSupport
import LabHarness
import XCTest

/// The terminal report fits the width it is given: verdicts continue under their finding, the
/// experiment's own sections are wrapped too, and the width comes from `COLUMNS`, else the
/// terminal, else 100.
final class HumanReportWidthTests: XCTestCase {
    let longSummary =
        "0 of 300 saw their 1 s timeout within 2 s: after 3 s without a completion, 64 callers had started and 0 timers fired (deadlock, 66 threads)"

    func definition(sections: @escaping @Sendable (ExperimentReport) -> [String] = { _ in [] }) -> ExperimentDefinition
    {
        ExperimentDefinition(
            name: "runloop", executable: "exp-runloop",
            question: "Where may a request's run loop live, and who may block waiting for it?",
            about: "", flags: [],
            variants: [
                Variant(
                    "global-queue", summary: "", expect: [OutcomeExpectation(.deadlock, .expected, "")],
                    claim: Claim("runloop.global-queue-misses-timeouts", "")
                ) { _ in
                    VariantRecord(outcome: .deadlock, mechanism: .seen("callers seen blocked"))
                }
            ],
            findings: [
                Finding("runloop.x", claim: "", needs: ["global-queue"]) { _ in
                    Verdict(symptom: true, mechanism: .seen("x"), "x")
                }
            ],
            columns: [.count("threads", "threads.peak")], extraSections: sections)
    }

    func report() -> ExperimentReport {
        ExperimentReport(
            experiment: "runloop", platform: PlatformInfo(os: "linux", cpus: 2, swift: "6.3.1"), parameters: [:],
            variants: [
                VariantReport(name: "global-queue", outcome: .deadlock, grade: .expected, metrics: ["threads.peak": 66])
            ],
            findings: [
                FindingReport(
                    id: "runloop.global-queue-misses-timeouts", applicable: true, reproduced: true, summary: longSummary
                ),
                FindingReport(id: "runloop.x", applicable: true, reproduced: false, summary: "short"),
            ])
    }

    func lines(width: Int, sections: @escaping @Sendable (ExperimentReport) -> [String] = { _ in [] }) -> [String] {
        HumanReport.render(
            report(), definition: definition(sections: sections), style: Style(enabled: true), width: width
        )
        .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    func columns(_ line: String) -> Int {
        line.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression).unicodeScalars.count
    }

    func testNoLineIsWiderThanTheWidthAndNoWordIsLost() {
        for width in [100, 80, 60] {
            let text = lines(width: width)
            for line in text { XCTAssertLessThanOrEqual(columns(line), width, "at \(width): \(line)") }
            let words = text.joined(separator: " ").replacingOccurrences(
                of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression
            )
            .split(separator: " ")
            for word in longSummary.split(separator: " ") {
                XCTAssertTrue(words.contains(word), "\(word) lost at \(width)")
            }
        }
    }

    func testVerdictContinuationLinesAreIndentedUnderTheirFinding() throws {
        // At 100 columns the summary starts at column 59 and keeps 41 for words: continuation
        // lines align under it.
        let wide = lines(width: 100)
        let first = try XCTUnwrap(wide.firstIndex { $0.contains("runloop.global-queue-misses-timeouts") })
        let plain = wide[first].replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
        let summaryStart = try XCTUnwrap(plain.range(of: "0 of 300")).lowerBound
        let summaryColumn = plain.unicodeScalars.distance(from: plain.startIndex, to: summaryStart)
        XCTAssertEqual(summaryColumn, 4 + "runloop.global-queue-misses-timeouts".count + 2 + 10 + 2)
        XCTAssertTrue(wide[first + 1].hasPrefix(String(repeating: " ", count: summaryColumn)), wide[first + 1])
        XCTAssertTrue(wide[first + 1].dropFirst(summaryColumn).first != " ", wide[first + 1])
        // At 80 that would leave 21 columns: continuation lines go six in, under the id.
        let narrow = lines(width: 80)
        let start = try XCTUnwrap(narrow.firstIndex { $0.contains("runloop.global-queue-misses-timeouts") })
        XCTAssertTrue(
            narrow[start + 1].hasPrefix("      ") && !narrow[start + 1].hasPrefix("       "), narrow[start + 1])
        XCTAssertTrue(narrow[start + 2].contains("runloop.x") || narrow[start + 2].hasPrefix("      "))
    }

    func testTheExperimentsSectionsAreDrawnForTheWidthAndWrapped() {
        let text = lines(width: 70) { _ in
            ["  drawn for \(ReportWidth.current) columns: " + String(repeating: "word ", count: 30)]
        }
        XCTAssertTrue(text.contains { $0.contains("drawn for 70 columns") }, text.joined(separator: "\n"))
        for line in text { XCTAssertLessThanOrEqual(columns(line), 70, line) }
    }

    /// The ioctl path, on a real pseudo-terminal given a size; `COLUMNS` wins over it.
    func testTheTerminalsSizeIsTheWidthUnlessCOLUMNSSaysOtherwise() throws {
        var primary: Int32 = -1, secondary: Int32 = -1
        XCTAssertEqual(clab_open_pseudo_terminal(&primary, &secondary), 0, "a pseudo-terminal")
        defer { close(primary); close(secondary) }
        XCTAssertTrue(TerminalSize.resize(fd: secondary, rows: 30, columns: 72))
        XCTAssertEqual(Terminal.width(fd: secondary, environment: [:]), 72)
        XCTAssertEqual(Terminal.width(fd: secondary, environment: ["COLUMNS": "90"]), 90)
        XCTAssertEqual(Terminal.width(fd: secondary, environment: ["COLUMNS": "junk"]), 72)
        // Not a terminal (an invalid descriptor, a pipe): the default.
        XCTAssertEqual(Terminal.width(fd: -1, environment: [:]), Terminal.defaultColumns)
        let pipe = Pipe()
        XCTAssertEqual(
            Terminal.width(fd: pipe.fileHandleForWriting.fileDescriptor, environment: [:]), Terminal.defaultColumns)
    }
}
