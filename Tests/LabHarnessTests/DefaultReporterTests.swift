import Foundation
import LabHarness
import LabHarnessXCTest
import XCTest

/// The default reporter reaches XCTest itself: this test case captures the failures XCTest
/// is asked to record instead of failing, and checks their text and line.
final class DefaultReporterTests: XCTestCase {
    private final class Cycle {
        var me: Cycle?
    }

    private var captured: [(description: String, file: String, line: Int)] = []
    private var capturing = false

    override func recordFailure(
        withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool
    ) {
        if capturing {
            captured.append((description, filePath, lineNumber))
        } else {
            super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
        }
    }

    func testTheDefaultReporterFailsTheXCTestTestAtTheCallersLine() {
        capturing = true
        let line = #line + 2
        withBriefSecondLook {
            assertReleased(within: 0.1) { () -> Cycle in
                let cycle = Cycle()
                cycle.me = cycle
                return cycle
            }
        }
        capturing = false
        XCTAssertEqual(captured.count, 1)
        XCTAssertEqual(captured.first?.line, line)
        XCTAssertTrue(captured.first?.file.hasSuffix("DefaultReporterTests.swift") ?? false, "\(captured)")
        XCTAssertTrue(captured.first?.description.contains("Cycle was not released within 100 ms") ?? false, "\(captured)")
    }
}
