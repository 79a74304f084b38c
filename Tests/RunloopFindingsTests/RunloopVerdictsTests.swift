import LabHarness
import RunloopExperiment
import XCTest

/// Pitfall findings judged on recorded figures, where the run refutes them: each claim's
/// premise seen, its symptom absent, must read NOT REPRODUCED, not "not judged".
final class RunloopVerdictsTests: XCTestCase {
    func evaluate(_ id: String, _ reports: [(RunloopVariant, Outcome, [(String, Double)])]) throws -> Verdict {
        let options = try CommandLineParser(program: "exp-runloop", flags: runloopExperiment.flags).parse([])
        var variants: [String: VariantReport] = [:]
        for (name, outcome, pairs) in reports {
            var metrics = Metrics()
            for (key, value) in pairs { metrics[key] = value }
            variants[name.rawValue] = VariantReport(name: name.rawValue, outcome: outcome, metrics: metrics)
        }
        let inputs = FindingInputs(
            variants: variants, options: options, platform: .current,
            parsedParameters: try runloopExperiment.parameters(options))
        let finding = try XCTUnwrap(runloopExperiment.findings.first { $0.id == id })
        return finding.evaluate(inputs)
    }

    /// A Foundation whose run loop slept without a source: 2 passes and no CPU against 1 pass
    /// with the port. (Before, the passes were the mechanism, so this read "not judged".)
    func testALoopThatSleepsWithoutASourceRefutesTheSpin() throws {
        let verdict = try evaluate(
            "runloop.no-source-spins",
            [
                (.spinNoSource, .completed, [(RunloopMetric.cpuPerWall, 0.001), (RunloopMetric.passes, 2)]),
                (.spinWithSource, .completed, [(RunloopMetric.cpuPerWall, 0.001), (RunloopMetric.passes, 1)]),
            ])
        XCTAssertEqual(verdict.status, .notReproduced, verdict.summary)
        // The article's Linux figures still reproduce it.
        let spun = try evaluate(
            "runloop.no-source-spins",
            [
                (.spinNoSource, .completed, [(RunloopMetric.cpuPerWall, 0.99), (RunloopMetric.passes, 400_000)]),
                (.spinWithSource, .completed, [(RunloopMetric.cpuPerWall, 0.001), (RunloopMetric.passes, 1)]),
            ])
        XCTAssertTrue(spun.reproduced, spun.summary)
    }

    /// A semaphore wrapper on the main thread that returned, its completion queued on the main
    /// queue and run (step 3 of 3), beside a run-loop wrapper that returned: the claim is refuted.
    /// (Before, only the run-loop half could refute it; this read "not judged".)
    func testASemaphoreWrapperThatReturnedRefutesTheDeadlock() throws {
        let verdict = try evaluate(
            "runloop.semaphore-sync-deadlocks-main",
            [
                (.syncSemaphoreMain, .completed, [(RunloopMetric.steps, 3), (RunloopMetric.wallS, 0.25)]),
                (.syncRunloopMain, .completed, [(RunloopMetric.steps, 3), (RunloopMetric.wallS, 0.25)]),
            ])
        XCTAssertEqual(verdict.status, .notReproduced, verdict.summary)
    }
}
