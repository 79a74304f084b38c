import Foundation
import LabHarness
import XCTest

/// Lines the terminal report wraps: broken at spaces within the width, continued under a
/// hanging indent, colour codes free, long words whole.
final class TextWrapTests: XCTestCase {
    /// Terminal columns of a line: colour codes take none.
    func columns(_ line: String) -> Int {
        line.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression).unicodeScalars.count
    }

    func testALineThatFitsIsLeftAsItIs() {
        XCTAssertEqual(TextWrap.wrap("  a    b  c", width: 20), ["  a    b  c"])
    }

    func testWordsBreakAtSpacesAndNoLineIsWiderThanTheWidth() {
        let text = "  " + Array(repeating: "lorem ipsum", count: 20).joined(separator: " ")
        let lines = TextWrap.wrap(text, width: 40)
        XCTAssertGreaterThan(lines.count, 1)
        for line in lines { XCTAssertLessThanOrEqual(columns(line), 40, line) }
        // Nothing lost: the words come back in order.
        XCTAssertEqual(lines.joined(separator: " ").split(separator: " "), text.split(separator: " "))
    }

    func testContinuationLinesTakeTheGivenIndent() {
        let lines = TextWrap.wrap(
            "  ✓ finding.id  reproduced  one two three four five six seven eight nine ten",
            width: 40, indent: "      ")
        XCTAssertTrue(lines[0].hasPrefix("  ✓ finding.id"))
        for line in lines.dropFirst() {
            XCTAssertTrue(line.hasPrefix("      ") && !line.hasPrefix("       "), "'\(line)'")
        }
    }

    func testWithoutAnIndentContinuationLinesGoFourPastTheLinesOwnIndent() {
        let lines = TextWrap.wrap("   alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu", width: 40)
        XCTAssertGreaterThan(lines.count, 1)
        for line in lines.dropFirst() {
            XCTAssertTrue(line.hasPrefix("       ") && !line.hasPrefix("        "), "'\(line)'")
        }
    }

    func testAnIndentThatLeavesNoRoomIsShortened() {
        let lines = TextWrap.wrap(
            "x " + String(repeating: "word ", count: 30), width: 40, indent: String(repeating: " ", count: 35))
        for line in lines.dropFirst() {
            XCTAssertLessThanOrEqual(line.prefix { $0 == " " }.count, 40 - TextWrap.minimumRoom, "'\(line)'")
        }
    }

    func testColourCodesTakeNoColumns() {
        let red = "\u{1B}[31m", reset = "\u{1B}[0m"
        let coloured = "  \(red)✗\(reset) id  \(red)NOT REPRO.\(reset)  aaaa bbbb cccc"
        // 34 visible columns: it fits 34 although its bytes and characters are many more.
        XCTAssertEqual(TextWrap.wrap(coloured, width: 34), [coloured])
        let lines = TextWrap.wrap(coloured, width: 28)
        XCTAssertEqual(lines.count, 2)
        XCTAssertTrue(lines[0].contains("\(red)NOT REPRO.\(reset)"), lines[0])
        for line in lines { XCTAssertLessThanOrEqual(columns(line), 28, line) }
    }

    func testAWordLongerThanTheLineStaysWholeOnALineOfItsOwn() {
        let token = String(repeating: "x", count: 50)
        let lines = TextWrap.wrap("see \(token) for more", width: 30, indent: "  ")
        XCTAssertEqual(lines, ["see", "  " + token, "  for more"])
    }

    func testWrapLinesWrapsEachLineOfAText() {
        let lines = TextWrap.wrapLines("short\n\n  one two three four five six seven eight nine ten eleven", width: 40)
        XCTAssertEqual(lines[0], "short")
        XCTAssertEqual(lines[1], "")
        XCTAssertEqual(lines[2], "  one two three four five six seven")
        XCTAssertTrue(lines.dropFirst(3).allSatisfy { $0.hasPrefix("      ") })
    }

    func testCOLUMNSSetsTheWidthWhenItIsAUsableNumber() {
        XCTAssertEqual(Terminal.width(fd: -1, environment: ["COLUMNS": "80"]), 80)
        XCTAssertEqual(Terminal.width(fd: -1, environment: ["COLUMNS": " 132 "]), 132)
        // Not a number, too narrow to lay a verdict out, or absurd: the default.
        for bad in ["", "wide", "5", "-80", "100000", "80.5"] {
            XCTAssertEqual(Terminal.width(fd: -1, environment: ["COLUMNS": bad]), Terminal.defaultColumns, bad)
        }
        XCTAssertEqual(Terminal.width(fd: -1, environment: [:]), Terminal.defaultColumns)
    }
}
