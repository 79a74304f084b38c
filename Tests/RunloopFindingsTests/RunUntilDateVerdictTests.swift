import LabHarness
import RunloopExperiment
import XCTest

/// `runloop.run-until-date-releases-at-guard` judged on recorded figures: its global half says
/// the run-loop blocks never started, so it counts those that ever armed their timer, not the
/// most that ran at once (blocks that ran one after another and ended are missing from that).
final class RunUntilDateVerdictTests: XCTestCase {
    /// The thread half as a quiet quick run records it; the global half deadlocked with
    /// `armed` of 40 blocks ever started and `atOnce` of them at most running at once.
    func verdict(armed: Double, atOnce: Double) throws -> Verdict {
        let options = try runloopExperiment.parser.parse(["--quick"])
        func report(_ name: RunloopVariant, _ outcome: Outcome, _ pairs: [(String, Double)]) -> VariantReport {
            var metrics = Metrics()
            for (key, value) in pairs { metrics[key] = value }
            var report = VariantReport(name: name.rawValue, outcome: outcome, metrics: metrics)
            report.mechanism = .seen("the global callers were seen blocked")
            return report
        }
        let thread = report(
            .runUntilDateThread, .completed,
            [
                (RunloopMetric.total, 2), (RunloopMetric.fired, 2), (RunloopMetric.completed, 2),
                (RunloopMetric.guardPromisedS, 1.25), (RunloopMetric.untilDateReleasedAfterS, 1.25),
                (RunloopMetric.untilDateExcessS, 0.001), (RunloopMetric.runReleased, 0), (RunloopMetric.runHeldS, 1.5),
            ])
        let global = report(
            .runUntilDate, .deadlock,
            [
                (RunloopMetric.total, 40), (RunloopMetric.callersStarted, 3),
                (RunloopMetric.timersArmed, armed), (RunloopMetric.runloopThreadsPeak, atOnce),
            ])
        let inputs = FindingInputs(
            variants: [thread.name: thread, global.name: global], options: options, platform: .current,
            parsedParameters: try runloopExperiment.parameters(options))
        let finding = try XCTUnwrap(
            runloopExperiment.findings.first { $0.id == "runloop.run-until-date-releases-at-guard" })
        return finding.evaluate(inputs)
    }

    func testNoBlockStartedHoldsTheGlobalHalf() throws {
        let none = try verdict(armed: 0, atOnce: 0)
        XCTAssertTrue(none.summary.contains("0 of 40 run-loop blocks ever started"), none.summary)
        XCTAssertTrue(none.reproduced, none.summary)
    }

    func testBlocksThatStartedOneAfterAnotherAreCountedEveryOne() throws {
        let many = try verdict(armed: 20, atOnce: 1)
        XCTAssertTrue(many.summary.contains("20 of 40 run-loop blocks ever started"), many.summary)
        XCTAssertEqual(many.status, .notReproduced, "half the blocks ran their run loop: " + many.summary)
    }
}
