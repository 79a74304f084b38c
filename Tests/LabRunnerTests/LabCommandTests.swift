import Foundation
import LabHarness
import LabHarnessXCTest
import LabRunner
import XCTest

/// The `lab` program's command line: listing, usage errors and the exit statuses of `report`.
final class LabCommandTests: XCTestCase {
    private func lab(_ arguments: [String], budget: Double = 60) throws -> ChildRun {
        try ChildProcess.run(
            ChildSpec(executable: BuiltProducts.executable("lab"), arguments: arguments, budget: budget))
    }

    func testTheListNamesEveryExperimentWithItsQuestion() throws {
        let run = try lab([])
        XCTAssertEqual(run.exitCode, 0)
        for entry in LabCatalog.standard.entries {
            XCTAssertTrue(run.stdout.contains(entry.definition.executable), entry.command)
            XCTAssertTrue(run.stdout.contains(entry.definition.question), entry.command)
        }
        XCTAssertEqual(try lab(["help"]).exitCode, 0)
    }

    func testBadInputGetsOneLineAndItsExitStatus() throws {
        let directory = try temporaryDirectory("exit")
        defer { try? FileManager.default.removeItem(at: directory) }
        let otherSchema = directory.appendingPathComponent("other.json")
        try Data(#"{"kind": "runloop-lab.results", "schema": 9}"#.utf8).write(to: otherSchema)
        let good = directory.appendingPathComponent("good.json")
        try sampleDocument().jsonData().write(to: good)
        let aFile = directory.appendingPathComponent("plain-file")
        try Data("x".utf8).write(to: aFile)

        let cases: [([String], Int32, String)] = [
            (["frobnicate"], 64, "unknown command or experiment 'frobnicate'"),
            (["all", "--only", "nope"], 64, "--only: unknown name 'nope'"),
            (["all", "--json"], 64, "--json needs a value"),
            (["report"], 64, "needs --from FILE and --out DIR"),
            (
                ["report", "--from", directory.appendingPathComponent("missing.json").path, "--out", directory.path],
                66, "cannot read"
            ),
            (["report", "--from", otherSchema.path, "--out", directory.path], 64, "has schema 9"),
            (["report", "--from", good.path, "--out", aFile.appendingPathComponent("sub").path], 73, "cannot create"),
            (["all", "--json", directory.appendingPathComponent("no/such/dir/r.json").path], 73, "cannot create"),
        ]
        for (arguments, status, message) in cases {
            let run = try lab(arguments)
            XCTAssertEqual(run.exitCode, status, "\(arguments): \(run.stderr)")
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains(message), "\(arguments): \(run.stderr)")
            XCTAssertFalse(run.stderr.contains("Fatal error"))
        }
    }

    func testReportWritesThePageFromAGoodFile() throws {
        let directory = try temporaryDirectory("report-cli")
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = directory.appendingPathComponent("good.json")
        try sampleDocument().jsonData().write(to: good)
        let out = directory.appendingPathComponent("site")
        let run = try lab(["report", "--from", good.path, "--out", out.path])
        XCTAssertEqual(run.exitCode, 0, run.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent("index.html").path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent("results.md").path))
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: out.appendingPathComponent("charts/pool-threads.svg").path))
    }
}
