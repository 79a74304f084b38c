@testable import LabHarness
import XCTest

final class LoopbackResponseTests: XCTestCase {
    /// The body is cut into near-equal pieces, the first ones one byte longer, and nothing is
    /// lost or repeated.
    func testTheBodyIsCutIntoNearEqualPiecesThatAddUpToIt() {
        let response = LoopbackResponse(bodySize: 10, chunkCount: 3)
        XCTAssertEqual(response.chunks.map(\.count), [4, 3, 3])
        XCTAssertEqual(Array(response.chunks.joined()), response.body)
        XCTAssertEqual(response.body, (0..<10).map(LoopbackResponse.patternByte(at:)))
    }

    /// Out-of-range settings are brought into range instead of trapping: at least one piece,
    /// at most one per byte, no negative times.
    func testOutOfRangeSettingsAreBroughtIntoRange() {
        let tooMany = LoopbackResponse(bodySize: 3, headerDelay: -1, chunkCount: 50, chunkInterval: -2)
        XCTAssertEqual(tooMany.chunkCount, 3)
        XCTAssertEqual(tooMany.headerDelay, 0)
        XCTAssertEqual(tooMany.chunkInterval, 0)
        XCTAssertEqual(LoopbackResponse(bodySize: 3, chunkCount: 0).chunkCount, 1)
        let empty = LoopbackResponse(bodySize: 0, chunkCount: 4)
        XCTAssertEqual(empty.chunks.count, 0)
        XCTAssertTrue(String(decoding: empty.head, as: UTF8.self).contains("Content-Length: 0\r\n"))
    }

    /// The head is a complete HTTP/1.1 status line and headers, ending with the blank line.
    func testTheHeadIsAStatusLineAndHeadersEndingWithABlankLine() {
        let head = String(decoding: LoopbackResponse(bodySize: 42).head, as: UTF8.self)
        XCTAssertTrue(head.hasPrefix("HTTP/1.1 200 OK\r\n"))
        XCTAssertTrue(head.contains("\r\nContent-Length: 42\r\n"))
        XCTAssertTrue(head.hasSuffix("Connection: close\r\n\r\n"))
    }
}
