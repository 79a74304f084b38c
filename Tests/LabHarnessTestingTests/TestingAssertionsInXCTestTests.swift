import Foundation
import LabHarness
import LabHarnessTesting
import XCTest

/// A `LabHarnessTesting` assertion called inside an XCTest test: the failure reaches XCTest
/// (captured here instead of recorded) at the caller's file and line, not nowhere.
final class TestingAssertionsInXCTestTests: XCTestCase {
    private final class Cycle {
        var me: Cycle?
    }

    private final class Plain {}

    private var captured: [(description: String, file: String, line: Int)] = []
    private var capturing = false

    /// A first assertion before any test of this class starts lets the harness see each test
    /// start (XCTest does not otherwise say which test is running).
    override class func setUp() {
        super.setUp()
        assertReleased(within: 1) { Plain() }
    }

    override func recordFailure(
        withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool
    ) {
        if capturing {
            captured.append((description, filePath, lineNumber))
        } else {
            super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
        }
    }

    func testASwiftTestingAssertionFailsTheXCTestTestAtTheCallersLine() {
        capturing = true
        // A second look of 0.5 s, not 5: the cycle fails whatever it is.
        let line = #line + 2
        HarnessAssertions.$secondLookFloor.withValue(0.5) {
            assertReleased(within: 0.1) { () -> Cycle in
                let cycle = Cycle()
                cycle.me = cycle
                return cycle
            }
        }
        capturing = false
        XCTAssertEqual(captured.count, 1)
        XCTAssertEqual(captured.first?.line, line)
        XCTAssertTrue(captured.first?.file.hasSuffix("TestingAssertionsInXCTestTests.swift") ?? false, "\(captured)")
        XCTAssertTrue(captured.first?.description.contains("Cycle was not released within 100 ms") ?? false, "\(captured)")
    }
}
