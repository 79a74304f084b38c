import LabHarness
import XCTest

/// Time bars share one labelled scale, fit the report's width, and draw nothing without rows.
final class TimeBarsTests: XCTestCase {
    func testBarsShareOneScaleAndTheAxisIsLabelled() {
        let lines = TextChart.timeBars([("short", 6e-6, " a"), ("long", 0.5, " b")], width: 40, columns: 100) {
            "alive (scale 0 to \($0))"
        }
        XCTAssertEqual(lines.first, "alive (scale 0 to 500 ms)")
        XCTAssertEqual(lines[1], "  short │ a")
        XCTAssertEqual(lines[2], "  long  │" + String(repeating: "█", count: 40) + " b")
        XCTAssertEqual(lines[3], String(repeating: " ", count: 8) + "└" + String(repeating: "─", count: 39) + "┘")
        XCTAssertTrue(lines[4].hasPrefix(String(repeating: " ", count: 8) + "0 "), lines[4])
        XCTAssertTrue(lines[4].hasSuffix(" 500 ms"), lines[4])
        XCTAssertEqual(lines[3].count, lines[4].count, "the end's label ends under the axis's end")
    }

    func testBarsShrinkToTheColumnsButNotBelowTen() {
        let narrow = TextChart.timeBars([("x", 1, "")], width: 40, columns: 30) { $0 }
        XCTAssertEqual(narrow[1].filter { $0 == "█" }.count, 11)
        let tiny = TextChart.timeBars([("x", 1, "")], width: 40, columns: 5) { $0 }
        XCTAssertEqual(tiny[1].filter { $0 == "█" }.count, 10)
        XCTAssertEqual(TextChart.timeBars([], columns: 100) { $0 }, [])
    }
}
