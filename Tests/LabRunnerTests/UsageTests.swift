import Foundation
import LabHarness
import LabHarnessXCTest
import LabRunner
import XCTest

/// What a user expects from every `lab` command: `--help` works everywhere, extra words are
/// usage errors, echoed values stay on one short line, and a run that judged nothing says so.
final class UsageTests: XCTestCase {
    private func lab(_ arguments: [String], budget: Double = 30) throws -> ChildRun {
        try ChildProcess.run(
            ChildSpec(executable: BuiltProducts.executable("lab"), arguments: arguments, budget: budget))
    }

    func testHelpWorksForEveryCommand() throws {
        for command in ["all", "report", "bench", "list", "help"] {
            let run = try lab([command, "--help"])
            XCTAssertEqual(run.exitCode, 0, "\(command): \(run.stderr)")
            XCTAssertTrue(run.stdout.contains("usage"), "\(command): \(run.stdout)")
            XCTAssertTrue(run.stderr.isEmpty, "\(command): \(run.stderr)")
        }
        let all = try lab(["all", "--help"])
        XCTAssertTrue(
            all.stdout.contains("--quick") && all.stdout.contains("--json") && all.stdout.contains("--only"), all.stdout
        )
    }

    /// Each help's exit-status list names exactly the statuses its command returns (read from
    /// the code: 74 is stdout that cannot take the output, or a --json file whose write failed).
    func testExitStatusListsSayWhatEachCommandReturns() throws {
        let expected: [([String], [Int])] = [
            (["help"], [0, 1, 64, 66, 73, 74, 130]),
            (["list", "--help"], [0, 64, 74]),
            (["all", "--help"], [0, 1, 64, 73, 74, 130]),
            (["report", "--help"], [0, 64, 66, 73, 74]),
            (["bench", "--help"], [0, 64, 73, 74]),
            (["watch", "--help"], [1, 124, 64, 71, 73, 74, 130]),
        ]
        for (arguments, statuses) in expected {
            let run = try lab(arguments)
            let list = try XCTUnwrap(run.stdout.range(of: "exit status:"), "\(arguments): \(run.stdout)")
            let numbers = run.stdout[list.upperBound...].split { !$0.isNumber }.compactMap { Int($0) }
            XCTAssertEqual(numbers, statuses, "\(arguments)")
        }
    }

    func testExtraArgumentsAreUsageErrors() throws {
        for arguments in [["help", "extra", "junk"], ["bench-child", "--bogus"], ["list", "extra"]] {
            let run = try lab(arguments)
            XCTAssertEqual(run.exitCode, 64, "\(arguments): \(run.stderr)")
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, "\(arguments): \(run.stderr)")
        }
    }

    func testEchoedValuesAreEscapedAndCut() throws {
        let long = String(repeating: "v", count: 100_000)
        for arguments in [
            ["frobnicate\nsecond line"], [long], ["all", "--only", "pool\nrm -rf"], ["all", "--only", long],
        ] {
            let run = try lab(arguments)
            XCTAssertEqual(run.exitCode, 64, run.stderr)
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, "one line: \(run.stderr.prefix(200))")
            XCTAssertLessThan(run.stderr.count, 400, "a short line: \(run.stderr.prefix(200))")
        }
    }

    func testARunThatJudgedNoFindingIsNotASuccess() throws {
        var document = sampleDocument()
        for e in document.experiments.indices {
            for f in document.experiments[e].findings.indices { document.experiments[e].findings[f].applicable = false }
        }
        let result = AllCommand.Result(document: document, interrupted: false)
        XCTAssertEqual(result.exitStatus, 1, "0 of 0 findings is not a success")
        let table = AllCommand.table(document, style: Style(enabled: false))
        XCTAssertTrue(table.contains("no finding was judged"), table)
        let empty = LabDocument(complete: true, quick: true, elapsedSeconds: 1, experiments: [], failures: [])
        XCTAssertEqual(AllCommand.Result(document: empty, interrupted: false).exitStatus, 1)
    }
}
