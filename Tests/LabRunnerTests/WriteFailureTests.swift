import Foundation
import LabHarness
import LabHarnessXCTest
import XCTest

/// Every write to stdout and stderr goes through one writer that never traps: the shell's own
/// ways of refusing output (`>&-`, `> /dev/full`, `| head -1`, `2>&-`) each end with a status
/// that says what happened and never with a backtrace. The redirections are made by `sh`,
/// exactly as a user's shell makes them.
final class WriteFailureTests: XCTestCase {
    /// Runs `lab ARGUMENTS` under `sh -c` with `redirection` appended to its command line;
    /// returns the exit status and what reached stderr (unless stderr itself is redirected).
    private func shell(
        _ arguments: [String], _ redirection: String, before: String = ""
    ) throws -> (status: Int32, stderr: String) {
        let lab = try BuiltProducts.executable("lab")
        let script = before + "\"$0\" \"$@\" \(redirection)"
        let run = try ChildProcess.run(
            ChildSpec(
                executable: "/bin/sh", arguments: ["-c", script, lab] + arguments,
                environment: ["SWIFT_BACKTRACE": "enable=no"], budget: 60))
        XCTAssertFalse(run.stderr.contains("Fatal error"), run.stderr)
        XCTAssertFalse(run.stderr.contains("Backtrace"), run.stderr)
        return (run.exitCode ?? -1, run.stderr)
    }

    /// The dance's three quick variants that judge one finding: about a second.
    private let dance = ["dance", "--quick", "--variant", "heap-stack"]

    func testClosedStdoutEndsQuietlyWithTheEarnedStatus() throws {
        let normal = try shell(dance, "> /dev/null")
        let closed = try shell(dance, ">&-")
        XCTAssertEqual(closed.status, normal.status, "closed stdout keeps the verdict's status: \(closed.stderr)")
        XCTAssertEqual(closed.stderr, "", "quietly")
    }

    func testFullDeviceGivesOneLineAndStatus74() throws {
        let human = try shell(dance, "> /dev/full")
        XCTAssertEqual(human.status, 74)
        XCTAssertEqual(human.stderr.split(separator: "\n").count, 1, human.stderr)
        XCTAssertTrue(human.stderr.contains("No space left on device"), human.stderr)

        let help = try shell(["--help"], "> /dev/full")
        XCTAssertEqual(help.status, 74, help.stderr)
    }

    func testJSONThatCannotBeDeliveredIs74WhateverTheCause() throws {
        let full = try shell(dance + ["--json"], "> /dev/full 2>/dev/null")
        XCTAssertEqual(full.status, 74)
        let closed = try shell(dance + ["--json"], ">&- 2>/dev/null")
        XCTAssertEqual(closed.status, 74)
    }

    func testAFileThatFillsUpKeepsNoHalfReport() throws {
        // A file that takes the first bytes but not all of them: past RLIMIT_FSIZE a write
        // fails with EFBIG (SIGXFSZ ignored), as a write to a nearly full disk fails with ENOSPC.
        let directory = try temporaryDirectory("fsize")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("report.json")
        let run = try shell(dance + ["--json"], "> '\(file.path)' 2>/dev/null", before: "trap '' XFSZ; ulimit -f 2; ")
        XCTAssertEqual(run.status, 74)
        let size = (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? -1
        XCTAssertEqual(size, 0, "the half-written JSON was cut back, not left behind")
    }

    /// A `--json FILE` that takes the first bytes but not all (EFBIG past `ulimit -f`, as ENOSPC
    /// on a full disk) is an I/O error, 74, not "cannot create" (73): the file could be created.
    func testAJSONFileThatFillsUpIs74AndKeepsTheOldFile() throws {
        let directory = try temporaryDirectory("fsize-file")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("all.json")
        try Data("old".utf8).write(to: file)
        let run = try shell(
            ["all", "--quick", "--only", "dance", "--json", file.path], "> /dev/null",
            before: "trap '' XFSZ; ulimit -f 2; ")
        XCTAssertEqual(run.status, 74, run.stderr)
        XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)
        XCTAssertTrue(run.stderr.hasPrefix("lab all: could not write '\(file.path)'"), run.stderr)
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), "old", "the old file, whole")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: directory.path), ["all.json"], "no temporary file left")
    }

    func testBrokenPipeNeverTraps() throws {
        let directory = try temporaryDirectory("pipe")
        defer { try? FileManager.default.removeItem(at: directory) }
        let status = directory.appendingPathComponent("status")
        // `true` is gone long before the report is ready: the writer meets EPIPE.
        _ = try shell(dance, "; echo $? > '\(status.path)'; } | true", before: "{ COLUMNS=20 ")
        let code = try String(contentsOf: status, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(code == "0" || code == "1", "the earned status, not a signal's or a trap's: \(code)")
    }

    func testUsageErrorsStay64WhenStderrIsClosed() throws {
        let run = try shell(["dance", "--no-such-flag"], "2>&-")
        XCTAssertEqual(run.status, 64)
        let full = try shell(["all", "--bogus"], "2>/dev/full")
        XCTAssertEqual(full.status, 64)
    }
}
