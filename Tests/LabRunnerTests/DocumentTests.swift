import Foundation
import LabHarness
import LabRunner
import XCTest

final class DocumentTests: XCTestCase {
    func testTheDocumentRoundTripsAndNamesItself() throws {
        let document = sampleDocument()
        let data = try document.jsonData()
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        XCTAssertEqual(object["kind"] as? String, "runloop-lab.results")
        XCTAssertEqual(object["schema"] as? Int, 1)
        XCTAssertEqual(object["lab_version"] as? String, LabVersion.current)
        XCTAssertEqual((object["platform"] as? [String: Any])?["cpus"] as? Int, 2)
        XCTAssertEqual(
            (object["experiments"] as? [[String: Any]])?.first?["schema"] as? Int, 1,
            "each experiment is a schema-1 object")
        XCTAssertEqual(try LabDocument.read(data), document)
    }

    func testASingleExperimentsReportReadsAsADocument() throws {
        let report = sampleDocument().experiments[0]
        let document = try LabDocument.read(report.jsonData())
        XCTAssertEqual(document.experiments, [report])
    }

    func testOtherFilesAreRefusedWithAReason() {
        let cases: [(String, String)] = [
            ("not json", "is not JSON"),
            (#"{"kind": "something-else", "schema": 1}"#, "is not a lab results file"),
            (#"{"kind": "runloop-lab.results", "schema": 2}"#, "has schema 2"),
            (#"{"experiment": "x", "schema": 7}"#, "has schema 7"),
            (#"[1, 2]"#, "is not JSON"),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try LabDocument.read(Data(text.utf8)), text) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(text): \(error)")
            }
        }
    }

    func testAtomicWritesLeaveNoTemporaryFiles() throws {
        let directory = try temporaryDirectory("atomic")
        defer { try? FileManager.default.removeItem(at: directory) }
        let target = directory.appendingPathComponent("results.json")
        try AtomicFile.write("first", to: target)
        try AtomicFile.write("second", to: target)
        XCTAssertEqual(try String(contentsOf: target, encoding: .utf8), "second")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["results.json"])
        XCTAssertThrowsError(try AtomicFile.write("x", to: directory.appendingPathComponent("missing/dir/file")))
    }
}
