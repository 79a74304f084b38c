@testable import LabHarness
import XCTest

/// How a child's standard output is read: protocol lines pulled out wherever the reads split
/// them, ordinary output kept up to the limit, and every byte looked at once.
final class OutputCollectorTests: XCTestCase {
    func collect(_ pieces: [String], limit: Int = 1 << 20) -> OutputCollector {
        var collector = OutputCollector(limit: limit, parsesProtocol: true)
        for piece in pieces { collector.append(ArraySlice(Array(piece.utf8))) }
        collector.finish()
        return collector
    }

    func testProtocolLinesSplitAcrossReadsAreParsed() {
        let c = collect(["before\n@lab:pro", "gress 3\nmid", "dle\n@lab:result {\"a\"", ":1}\nafter"])
        XCTAssertEqual(c.progress, 3)
        XCTAssertEqual(c.result, "{\"a\":1}")
        XCTAssertEqual(c.text, "before\nmiddle\nafter")
    }

    /// A result is one line of JSON that may be far longer than any ordinary line held back.
    func testAResultLongerThanALongLineIsStillAResult() {
        let payload = String(repeating: "7", count: 3 * OutputCollector.longLine)
        let line = "@lab:result " + payload + "\n"
        let chunks = stride(from: 0, to: line.count, by: 4096).map { start -> String in
            let from = line.index(line.startIndex, offsetBy: start)
            return String(line[from..<line.index(from, offsetBy: min(4096, line.count - start))])
        }
        let c = collect(chunks)
        XCTAssertEqual(c.result?.count, payload.count)
        XCTAssertEqual(c.text, "")
    }

    /// A long ordinary line is kept as it comes (up to the limit), and a continuation that
    /// happens to start with the prefix at a read's edge is not taken for a protocol line.
    func testALongOrdinaryLineIsKeptAndItsPiecesAreNotProtocol() {
        let long = String(repeating: "x", count: OutputCollector.longLine)
        let c = collect([long, "@lab:progress 9", " still the same line\n@lab:progress 2\n"])
        XCTAssertEqual(c.progress, 2, "only the line that starts with the prefix counts")
        XCTAssertEqual(c.text, long + "@lab:progress 9 still the same line\n")
    }

    func testOutputWithoutNewlinesIsKeptToTheLimitAndCounted() {
        let chunk = String(repeating: "y", count: 65536)
        let c = collect(Array(repeating: chunk, count: 32), limit: 100_000)
        XCTAssertEqual(c.text.count, 100_000 + "\n[\(32 * 65536 - 100_000) more bytes dropped]\n".count)
        XCTAssertEqual(c.dropped, 32 * 65536 - 100_000)
    }
}
