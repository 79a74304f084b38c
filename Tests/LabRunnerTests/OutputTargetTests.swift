import Foundation
import LabHarness
import LabHarnessXCTest
import LabRunner
import XCTest

/// Outputs go to regular files only, written whole or not at all. A symlink, FIFO or directory
/// where an output should go is refused with exit 73 before any experiment runs; inputs that
/// are not regular files are refused without being opened (a FIFO would block the reader).
final class OutputTargetTests: XCTestCase {
    private func lab(_ arguments: [String], budget: Double = 30) throws -> ChildRun {
        try ChildProcess.run(
            ChildSpec(
                executable: BuiltProducts.executable("lab"), arguments: arguments,
                environment: ["SWIFT_BACKTRACE": "enable=no"], budget: budget))
    }

    /// A directory holding a symlink to a victim file, a FIFO and a subdirectory.
    private func hostileTargets() throws -> (directory: URL, victim: URL, link: URL, fifo: URL, folder: URL) {
        let directory = try temporaryDirectory("targets")
        let victim = directory.appendingPathComponent("victim.txt")
        try Data("precious".utf8).write(to: victim)
        let link = directory.appendingPathComponent("link.json")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: victim)
        let fifo = directory.appendingPathComponent("fifo.json")
        XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
        let folder = directory.appendingPathComponent("folder.json")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        return (directory, victim, link, fifo, folder)
    }

    private func fileType(_ url: URL) -> FileAttributeType? {
        (try? FileManager.default.attributesOfItem(atPath: url.path))?[.type] as? FileAttributeType
    }

    func testAtomicFileRefusesAnythingButARegularFileAtTheTarget() throws {
        let t = try hostileTargets()
        defer { try? FileManager.default.removeItem(at: t.directory) }
        for target in [t.link, t.fifo, t.folder] {
            XCTAssertThrowsError(try AtomicFile.write("new", to: target), target.lastPathComponent)
        }
        XCTAssertEqual(
            try String(contentsOf: t.victim, encoding: .utf8), "precious", "the symlink's target is untouched")
        XCTAssertEqual(fileType(t.link), .typeSymbolicLink)
        XCTAssertNotEqual(fileType(t.fifo), .typeRegular, "the FIFO is still a FIFO")
        XCTAssertEqual(fileType(t.folder), .typeDirectory)
        let regular = t.directory.appendingPathComponent("plain.json")
        try AtomicFile.write("one", to: regular)
        try AtomicFile.write("two", to: regular)
        XCTAssertEqual(try String(contentsOf: regular, encoding: .utf8), "two", "a regular file is replaced")
        let names = try FileManager.default.contentsOfDirectory(atPath: t.directory.path)
        XCTAssertEqual(
            Set(names), ["victim.txt", "link.json", "fifo.json", "folder.json", "plain.json"], "no temporary file left")
    }

    func testJSONTargetsThatAreNotRegularFilesAreRefusedBeforeAnyRun() throws {
        let t = try hostileTargets()
        defer { try? FileManager.default.removeItem(at: t.directory) }
        for command in ["all", "bench"] {
            for target in [t.link, t.fifo, t.folder] {
                let run = try lab([command, "--json", target.path])
                XCTAssertEqual(
                    run.exitCode, 73, "\(command) \(target.lastPathComponent): \(run.evidence) \(run.stderr)")
                XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)
                XCTAssertTrue(run.stdout.isEmpty, "nothing ran: \(run.stdout)")
                XCTAssertLessThan(run.wall, 10, "refused before any work")
            }
        }
        XCTAssertEqual(try String(contentsOf: t.victim, encoding: .utf8), "precious")
        XCTAssertEqual(fileType(t.link), .typeSymbolicLink)
    }

    /// `/proc` takes no new file, yet `access(W_OK)` says it does to root: the check must try
    /// to create a file there, so that the refusal comes before the run, and names the user's
    /// path, never a temporary one of the command's own.
    func testOutputsWhereNoFileCanBeCreatedAreRefusedBeforeAnyRun() throws {
        var folder = stat()
        guard stat("/proc", &folder) == 0, folder.st_mode & S_IFMT == S_IFDIR else {
            throw XCTSkip("no /proc on this system")
        }
        let target = "/proc/lab-output-\(getpid())"
        XCTAssertThrowsError(try AtomicFile.checkTarget(URL(fileURLWithPath: target + ".json")))
        let directory = try temporaryDirectory("no-create")
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = directory.appendingPathComponent("good.json")
        try sampleDocument().jsonData().write(to: good)
        for arguments in [
            ["all", "--quick", "--only", "dance", "--json", target + ".json"], ["bench", "--json", target + ".json"],
            ["report", "--from", good.path, "--out", target],
        ] {
            let run = try lab(arguments, budget: 60)
            XCTAssertEqual(run.exitCode, 73, "\(arguments): \(run.stderr)")
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("cannot create '\(target)"), "the user's path: \(run.stderr)")
            XCTAssertTrue(run.stdout.isEmpty, "nothing ran: \(arguments): \(run.stdout.prefix(200))")
            XCTAssertLessThan(run.wall, 10, "refused before any work: \(arguments)")
        }
    }

    func testReportRefusesHostileOutputsAndInputs() throws {
        let t = try hostileTargets()
        defer { try? FileManager.default.removeItem(at: t.directory) }
        let good = t.directory.appendingPathComponent("good.json")
        try sampleDocument().jsonData().write(to: good)

        // index.html in --out is a symlink to the victim: refused, victim untouched, no page written.
        let site = t.directory.appendingPathComponent("site")
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(
            at: site.appendingPathComponent("index.html"), withDestinationURL: t.victim)
        let linked = try lab(["report", "--from", good.path, "--out", site.path])
        XCTAssertEqual(linked.exitCode, 73, linked.stderr)
        XCTAssertEqual(linked.stderr.split(separator: "\n").count, 1, linked.stderr)
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: site.appendingPathComponent("results.md").path),
            "refused before any work")
        XCTAssertEqual(try String(contentsOf: t.victim, encoding: .utf8), "precious")

        // A FIFO or a directory as --from: one line, exit 66, no hang.
        for input in [t.fifo, t.folder] {
            let run = try lab(
                ["report", "--from", input.path, "--out", t.directory.appendingPathComponent("other").path], budget: 10)
            XCTAssertEqual(run.exitCode, 66, "\(input.lastPathComponent): \(run.evidence) \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("not a regular file"), run.stderr)
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)
        }
    }
}
