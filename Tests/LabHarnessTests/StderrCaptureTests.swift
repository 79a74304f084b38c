import CLabSupport
import Foundation
@testable import LabHarness
import XCTest

/// `StderrCapture`: what is written to fd 2 while captures are open is seen by each of them,
/// overlapping captures share one copy, and fd 2 is the same file again once the last one ends.
final class StderrCaptureTests: XCTestCase {
    private func stderrIdentity() -> (dev: UInt64, ino: UInt64) {
        var info = stat()
        XCTAssertEqual(fstat(2, &info), 0)
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }

    func testOverlappingCapturesSeeWhatArrivedWhileOpen_andFd2IsPutBack() throws {
        let before = stderrIdentity()
        let first = try StderrCapture()
        Terminal.writeError("lab-capture-test one\n")
        // The copy comes through the forwarder: a capture sees what *arrives* while it is open.
        XCTAssertNotNil(first.waitForLine(containing: "lab-capture-test one", within: 2))
        let second = try StderrCapture()
        Terminal.writeError("lab-capture-test two\n")
        XCTAssertNotNil(second.waitForLine(containing: "lab-capture-test two", within: 2))
        XCTAssertEqual(
            second.lines(containing: "lab-capture-test one"), [], "a capture sees only what came after it opened")
        second.end()
        Terminal.writeError("lab-capture-test three\n")
        XCTAssertNotNil(
            first.waitForLine(containing: "lab-capture-test three", within: 2), "the first capture is still open")
        XCTAssertEqual(first.lines(containing: "lab-capture-test").count, 3)
        first.end()
        first.end()  // a second end does nothing
        let after = stderrIdentity()
        XCTAssertEqual(before.dev, after.dev)
        XCTAssertEqual(before.ino, after.ino, "fd 2 points where it did before the first capture")
    }
}
