import Foundation
// XMLParser is in FoundationXML on Linux and in Foundation itself on Darwin: every Linux program
// imports it this way, and no harness file can re-export it without linking it into every lab binary.
#if canImport(FoundationXML)
import FoundationXML
#endif
import LabHarness
import LabRunner
import XCTest

/// Parses XML, collecting the first error; the SVGs must be well-formed XML on their own.
final class XMLCheck: NSObject, XMLParserDelegate {
    private(set) var error: Error?
    private(set) var elements: [String] = []

    static func parse(_ text: String) -> XMLCheck {
        let check = XMLCheck()
        let parser = XMLParser(data: Data(text.utf8))
        parser.delegate = check
        if !parser.parse() { check.error = parser.parserError ?? check.error ?? NSError(domain: "xml", code: 1) }
        return check
    }

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        elements.append(name)
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) { error = parseError }
}

final class ReportPageTests: XCTestCase {
    private func writeReport(_ document: LabDocument) throws -> (URL, ReportCommand.Written) {
        let directory = try temporaryDirectory("report")
        let file = directory.appendingPathComponent("results.json")
        try document.jsonData().write(to: file)
        let written = try ReportCommand.run(
            from: file.path, to: directory.appendingPathComponent("out").path, catalog: LabCatalog([]))
        return (directory, written)
    }

    /// One chart per kind of data each experiment recorded, every SVG a valid standalone
    /// XML document that names the SVG namespace.
    func testChartsAreValidStandaloneSVG() throws {
        let (directory, written) = try writeReport(sampleDocument())
        defer { try? FileManager.default.removeItem(at: directory) }
        let names = Set(written.charts.map(\.lastPathComponent))
        XCTAssertEqual(names, ["pool-threads.svg", "pool-probes.svg", "runloop-lateness.svg", "dance-events.svg"])
        for url in written.charts {
            let text = try String(contentsOf: url, encoding: .utf8)
            let check = XMLCheck.parse(text)
            XCTAssertNil(check.error, "\(url.lastPathComponent): \(String(describing: check.error))")
            XCTAssertEqual(check.elements.first, "svg")
            XCTAssertTrue(text.contains("xmlns=\"http://www.w3.org/2000/svg\""))
            XCTAssertTrue(check.elements.contains("text"))
        }
        let lateness = try String(
            contentsOf: written.charts.first { $0.lastPathComponent == "runloop-lateness.svg" }!, encoding: .utf8)
        XCTAssertTrue(lateness.contains("weird &lt;name&gt; &amp; &quot;quotes&quot;"), "names are escaped")
        XCTAssertTrue(lateness.contains("none of 30"), "timers that never fired are counted, not dropped")
        let events = try String(
            contentsOf: written.charts.first { $0.lastPathComponent == "dance-events.svg" }!, encoding: .utf8)
        XCTAssertTrue(events.contains("never released"))
    }

    /// The page is self-contained: its charts inline, no script, nothing fetched from a network.
    func testTheHTMLPageIsSelfContained() throws {
        let (directory, written) = try writeReport(sampleDocument(complete: false))
        defer { try? FileManager.default.removeItem(at: directory) }
        let html = try String(contentsOf: written.index, encoding: .utf8)
        XCTAssertEqual(html.components(separatedBy: "<svg ").count - 1, 4, "every chart inline")
        XCTAssertFalse(html.lowercased().contains("<script"))
        XCTAssertFalse(html.contains("src=\"http"))
        XCTAssertFalse(html.contains("href=\"http"))
        XCTAssertFalse(html.contains("@import"))
        XCTAssertTrue(html.contains("incomplete"))
        XCTAssertTrue(html.contains("<code>pool.global-queue-is-bounded</code>"))
        XCTAssertTrue(html.contains("not reproduced"))
        XCTAssertTrue(html.contains("not applicable"))
        // Each inline SVG is well-formed on its own too.
        for piece in html.components(separatedBy: "<svg ").dropFirst() {
            let svg = "<svg " + piece.components(separatedBy: "</svg>")[0] + "</svg>"
            XCTAssertNil(XMLCheck.parse(svg).error)
        }
        let markdown = try String(contentsOf: written.markdown, encoding: .utf8)
        XCTAssertTrue(markdown.contains("![runloop: how late each timeout timer fired](charts/runloop-lateness.svg)"))
        XCTAssertTrue(markdown.contains("| `pool.global-queue-is-bounded` | reproduced |"))
        XCTAssertTrue(markdown.contains("**Incomplete run**"))
    }
}
