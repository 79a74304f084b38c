import Foundation
import LabHarness
import LabFixtureKit
import XCTest

/// The experiment contract, end to end, through the fixture's tiny experiment: flags, JSON,
/// exit statuses, child trials that deadlock and crash, and Ctrl-C.
final class ExperimentMainTests: XCTestCase {
    func testDefaultRunReportsEveryOutcomeAndExitsZero() throws {
        let run = try runFixture(["--json"])
        XCTAssertEqual(run.exitCode, 0, run.stderr)
        let report = try ExperimentReport.decode(Data(run.stdout.utf8))
        XCTAssertEqual(report.schema, 1)
        XCTAssertEqual(report.experiment, "fixture")
        XCTAssertEqual(report.variants.map(\.name), ["ok", "hang", "trap"])
        XCTAssertEqual(report.variant("ok")?.outcome, .completed)
        XCTAssertEqual(report.variant("ok")?[FixtureMetric.completed], 5)
        XCTAssertEqual(report.variant("ok")?.series?["steps"]?.count, 2)
        XCTAssertEqual(report.variant("ok")?.events?.map(\.label), ["start", "end"])
        XCTAssertEqual(report.variant("hang")?.outcome, .deadlock)
        XCTAssertEqual(
            report.variant("hang")?[FixtureMetric.completed], 1, "progress so far, from the child's progress lines")
        XCTAssertEqual(report.variant("trap")?.outcome, .crashed)
        XCTAssertTrue(
            report.variant("trap")?.evidence?.contains("Fatal error: fixture variant trapped on purpose") ?? false)
        XCTAssertEqual(report.finding("fixture.never-applies")?.applicable, false)
        XCTAssertTrue(report.allReproduced)
        XCTAssertEqual(report.parameters["count"], .number(5))
        XCTAssertEqual(report.parameters["hold_s"], .number(0.2))
        XCTAssertTrue(run.stderr.contains("3 of 3 findings reproduced"), "the human report goes to stderr with --json")
    }

    func testQuickAndSelectedVariants() throws {
        let run = try runFixture(["--json", "--quick", "--variant", "ok"])
        XCTAssertEqual(run.exitCode, 0, run.stderr)
        let report = try ExperimentReport.decode(Data(run.stdout.utf8))
        XCTAssertEqual(report.variants.map(\.name), ["ok"])
        XCTAssertEqual(report.variant("ok")?[FixtureMetric.completed], 2, "--quick's count")
        XCTAssertEqual(report.findings.map(\.id), ["fixture.ok-completes", "fixture.never-applies"])
    }

    func testAFindingThatDoesNotReproduceExitsOne() throws {
        let run = try runFixture(["--variant", "ok", "--break"])
        XCTAssertEqual(run.exitCode, 1, run.stderr)
        XCTAssertTrue(run.stdout.contains("✗ fixture.ok-completes"), run.stdout)
        XCTAssertTrue(run.stdout.contains("0 of 1 findings reproduced"), run.stdout)
    }

    /// As in jcstress, an observed forbidden outcome fails the run even when no finding reads
    /// the variant, and the summary names it.
    func testAForbiddenOutcomeExitsOneAndIsNamed() throws {
        let run = try runFixture(["--variant", "ok,forbidden"])
        XCTAssertEqual(run.exitCode, 1, "every finding reproduced, but a variant ended forbidden: \(run.stdout)")
        XCTAssertTrue(run.stdout.contains("1 of 1 findings reproduced"), run.stdout)
        XCTAssertTrue(
            run.stdout.contains("forbidden outcome: forbidden ended failed (the variant broke its own contract)"),
            run.stdout)
        let json = try runFixture(["--json", "--variant", "ok,forbidden"])
        XCTAssertEqual(json.exitCode, 1, json.stderr)
        let report = try ExperimentReport.decode(Data(json.stdout.utf8))
        XCTAssertTrue(report.allReproduced)
        XCTAssertEqual(report.forbiddenVariants.map(\.name), ["forbidden"])
        XCTAssertFalse(report.passed)
    }

    /// Measure, then trap: the parent's record of a child that trapped keeps what the child
    /// handed over in its checkpoint, behind the runtime's message.
    func testACheckpointIsMergedIntoTheRecordOfACrashedChild() throws {
        let run = try runFixture(["--json", "--variant", "measure-then-trap"])
        XCTAssertEqual(run.exitCode, 1, "no finding reads this variant, so the run judged nothing: \(run.stderr)")
        let report = try ExperimentReport.decode(Data(run.stdout.utf8))
        let v = try XCTUnwrap(report.variant("measure-then-trap"))
        XCTAssertEqual(v.outcome, .crashed)
        XCTAssertEqual(v.grade, .expected)
        XCTAssertEqual(v[FixtureMetric.measured], 42)
        XCTAssertNotNil(v[Metrics.signal], "the signal that ended the child")
        XCTAssertEqual(v.events?.map(\.label), ["checkpoint"])
        XCTAssertEqual(v.series?["steps"]?.count, 1)
        let evidence = try XCTUnwrap(v.evidence)
        XCTAssertTrue(evidence.contains("Fatal error: fixture variant trapped after its checkpoint"), evidence)
        XCTAssertTrue(evidence.hasSuffix("; measured 42 before the trap"), evidence)
    }

    /// A child that exits 0 without writing a result said nothing about its trial: it failed,
    /// whether it was the trial's child or the trap process a trial started (`runTrapProcess`),
    /// and what it checkpointed before stays behind the reason.
    func testAChildThatExitsWithoutAResultFailed() throws {
        let run = try runFixture(["--json", "--variant", "silent-exit,trap-process-exits"])
        let report = try ExperimentReport.decode(Data(run.stdout.utf8))
        for name in ["silent-exit", "trap-process-exits"] {
            let v = try XCTUnwrap(report.variant(name), name)
            XCTAssertEqual(v.outcome, .failed, "\(name): \(v.evidence ?? "")")
            XCTAssertTrue(
                v.evidence?.hasPrefix("the child exited 0 without writing a result") ?? false, v.evidence ?? "")
        }
        let trap = try XCTUnwrap(report.variant("trap-process-exits"))
        XCTAssertTrue(trap.evidence?.hasSuffix("; measured before the step") ?? false, trap.evidence ?? "")
    }

    /// A `--variant` subset that covers no finding's needs judges nothing: the report says so
    /// and the run exits 1, because "0 of 0 reproduced" proves nothing.
    func testARunThatJudgesNoFindingSaysSoAndExitsOne() throws {
        let run = try runFixture(["--variant", "leak"])
        XCTAssertEqual(run.exitCode, 1, run.stdout)
        XCTAssertTrue(run.stdout.contains("not evaluated"), run.stdout)
        XCTAssertTrue(run.stdout.contains("no finding was judged"), run.stdout)
    }

    /// A report the JSON encoder refuses (an infinite threshold) is an output that cannot be
    /// made: one line naming why, exit 74, never an empty stdout with the verdict's status.
    func testAReportJSONCannotHoldIsOneLineAndExits74() throws {
        let run = try runFixture(["--json", "--variant", "unencodable"])
        XCTAssertEqual(run.exitCode, 74, run.stderr)
        XCTAssertEqual(run.stdout, "")
        let told = run.stderr.split(separator: "\n").filter { $0.contains("could not be encoded") }
        XCTAssertEqual(told.count, 1, run.stderr)
        XCTAssertEqual(
            told.first, "lab-fixture: the JSON report could not be encoded: inf at findings.0.thresholds.ceiling has no JSON form")
        XCTAssertEqual(run.stderr.split(separator: "\n").last, told.first, "the last line said")
    }

    func testTrialsAreCounted() throws {
        let run = try runFixture(["--json", "--variant", "trap", "--trials", "3", "--jobs", "3"])
        XCTAssertEqual(run.exitCode, 0, run.stderr)
        let report = try ExperimentReport.decode(Data(run.stdout.utf8))
        XCTAssertEqual(report.variant("trap")?.trials, ["crashed": 3])
        XCTAssertEqual(report.variant("trap")?.grade, .expected)
    }

    /// Bad input: exit 64, exactly one line on stderr, nothing on stdout, never a trap.
    func testBadInputExitsSixtyFourWithOneLine() throws {
        for arguments in [
            ["--count", "abc"], ["--count", "0"], ["--bogus"], ["--variant", "nope"], ["--hold", "-1"],
            ["--trials", "1000"], ["--jobs", "0"], ["--json", "extra"], ["--count", "1e400"],
        ] {
            let run = try runFixture(arguments)
            XCTAssertEqual(run.outcome, .failed, "\(arguments)")
            XCTAssertEqual(run.exitCode, 64, "\(arguments): \(run.stderr)")
            XCTAssertEqual(run.stdout, "", "\(arguments)")
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stderr.hasPrefix("lab-fixture: "), run.stderr)
        }
    }

    func testHelpExitsZero() throws {
        let run = try runFixture(["--help"])
        XCTAssertEqual(run.exitCode, 0)
        XCTAssertTrue(run.stdout.contains("usage: lab-fixture [options]"))
    }

    /// Ctrl-C stops the running child, prints what finished, exits 130, and leaves no child.
    func testInterruptStopsTheChildAndExits130() throws {
        let path = try fixture()
        let pidBox = PidBox()
        let interrupter = Thread {
            // Wait for the fixture to start its child trial, then press Ctrl-C.
            let deadline = MonotonicClock.now() + 10
            while MonotonicClock.now() < deadline {
                if let parent = pidBox.pid, !childTrials(of: parent).isEmpty {
                    kill(parent, SIGINT)
                    return
                }
                MonotonicClock.sleep(for: 0.02)
            }
        }
        interrupter.start()
        let run = try ChildProcess.run(
            ChildSpec(
                executable: path, arguments: ["--variant", "ok,sleepy", "--jobs", "2"],
                budget: 30, onStart: { pidBox.pid = $0 }))
        XCTAssertEqual(run.exitCode, 130, run.stderr)
        XCTAssertTrue(run.stderr.contains("interrupted"), run.stderr)
        XCTAssertTrue(run.stdout.contains("sleepy"), run.stdout)
        XCTAssertTrue(childTrials(of: run.pid).isEmpty)
        XCTAssertTrue(
            ProcessTable.all().filter {
                $0.commandLine.contains("--child-variant") && $0.commandLine.contains("sleepy")
            }.isEmpty,
            "a sleepy child trial survived")
    }
}

/// A pid set from another thread.
final class PidBox: Sendable {
    private let value = Atomic<Int32>(0)
    var pid: Int32? {
        get { let v = value.load(ordering: .acquiring); return v == 0 ? nil : v }
        set { value.store(newValue ?? 0, ordering: .releasing) }
    }
}

import Synchronization

/// Child trials (`--child-variant`) whose parent is `pid`.
func childTrials(of pid: Int32) -> [ProcessTable.Entry] {
    ProcessTable.children(of: pid).filter { $0.commandLine.contains("--child-variant") }
}
