import FindingsTestSupport
import LabHarness
import LabHarnessXCTest
import RunloopExperiment
import XCTest

/// One `--quick` run of the default plan (every placement, the async comparison, the pitfalls,
/// each variant in its own child, four at a time), shared by the tests that judge its findings:
/// the run an instructor shows is the run the tests judge, and it runs once per test process
/// instead of once per finding. It is the runloop report of the `lab all --quick` run the
/// findings suites share (`SharedQuickLabAll`), else an `exp-runloop --quick` run of its own,
/// again while the machine broke a trial (`judgedRun`). `RunloopStacksTests`, which names the
/// program on the main thread's stack, runs `exp-runloop` itself.
enum RunloopQuickRun {
    struct Failure: Error, CustomStringConvertible { let description: String }

    static let result: Result<ExperimentReport, Failure> = {
        do {
            if let shared = SharedQuickLabAll.report(of: runloopExperiment, lab: try BuiltProducts.executable("lab")) {
                return .success(shared)
            }
            return .success(
                try judgedRun {
                    try ExperimentRunner.run(
                        runloopExperiment, arguments: ["--quick"], executable: BuiltProducts.executable("exp-runloop"))
                })
        } catch {
            return .failure(Failure(description: "\(error)"))
        }
    }()

    static func report() throws -> ExperimentReport { try result.get() }
}

/// `run`'s report, run again (three runs at most) while the machine broke one of its trials
/// (no thread, no CPU: `Outcome.judgesNothing`). Such a run judged nothing, so running it again
/// picks no verdict; it only waits for a machine that lets the trial run, as the other helpers
/// building on the same two cores sometimes do not. A finding the machine still broke on the
/// last run is skipped by `assertReproduced` (FindingsTestSupport).
func judgedRun(_ run: () throws -> ExperimentReport) rethrows -> ExperimentReport {
    var report = try run()
    for _ in 1..<3 where report.variants.contains(where: \.outcome.judgesNothing) {
        report = try run()
    }
    return report
}

func variant(
    _ report: ExperimentReport, _ name: RunloopVariant, file: StaticString = #filePath, line: UInt = #line
) throws -> VariantReport {
    try XCTUnwrap(report.variant(name), "\(name.rawValue) did not run", file: file, line: line)
}
