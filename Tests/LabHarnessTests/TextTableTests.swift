import Foundation
import LabHarness
import XCTest

/// The report's tables fit the terminal: text columns wrap within themselves, values keep
/// their unit, and a table too wide even so is folded into blocks led by its first column.
final class TextTableTests: XCTestCase {
    let rows = [
        ["variant", "outcome", "wait p50", "where the result came"],
        ["global-queue", "deadlock", "≥ 757 ms", "Swift global concurrent queue"],
        ["shared-thread", "completed", "250 ms", "chat.library"],
    ]

    func testATableThatFitsIsOneLinePerRowAligned() {
        let lines = TextTable(rows: rows, rightAligned: [2]).render(width: 100)
        XCTAssertEqual(lines.count, 3)
        XCTAssertEqual(
            lines[1].range(of: "deadlock")?.lowerBound.utf16Offset(in: lines[1]),
            lines[2].range(of: "completed")?.lowerBound.utf16Offset(in: lines[2]))
        XCTAssertTrue(lines[2].contains("  250 ms  "), lines[2])
    }

    func testANarrowTableWrapsItsWidestTextColumnAndKeepsValuesWhole() {
        let lines = TextTable(rows: rows, rightAligned: [2]).render(width: 58)
        for line in lines { XCTAssertLessThanOrEqual(line.unicodeScalars.count, 58, line) }
        XCTAssertTrue(lines.contains { $0.contains("≥ 757 ms") }, lines.joined(separator: "\n"))
        XCTAssertTrue(
            lines.contains { $0.hasSuffix("concurrent queue") || $0.hasSuffix("concurrent") },
            lines.joined(separator: "\n"))
    }

    func testATableTooWideForItsWordsIsFoldedIntoBlocksLedByTheFirstColumn() {
        let wide = [["variant"] + (1...8).map { "column\($0)" }, ["a-variant"] + (1...8).map { "\($0)00.0 ms" }]
        let lines = TextTable(rows: wide, rightAligned: Set(1...8)).render(width: 50)
        for line in lines { XCTAssertLessThanOrEqual(line.unicodeScalars.count, 50, line) }
        let headers = lines.filter { $0.hasPrefix("  variant") }
        XCTAssertGreaterThan(headers.count, 1, lines.joined(separator: "\n"))
        XCTAssertEqual(lines.filter { $0.hasPrefix("  a-variant") }.count, headers.count)
        for n in 1...8 { XCTAssertTrue(lines.contains { $0.contains("\(n)00.0 ms") }, "column \(n) lost") }
    }

    func testStyleColoursEachCellLineAfterPadding() {
        let lines = TextTable(rows: rows).render(width: 100) { r, c, text in r > 0 && c == 1 ? "<\(text)>" : text }
        XCTAssertTrue(lines[1].contains("<deadlock >"), lines[1])
    }
}
