import LabHarness
import RunloopExperiment
import XCTest

/// `runloop.blocked-callers-throttle` judged on recorded figures: a loaded machine that
/// stretches the making of 300 run-loop threads does not refute "about one timeout", and
/// async callers that really wait longer than that after their run loops are armed do.
final class BlockedCallersVerdictTests: XCTestCase {
    /// Figures of `dedicated-thread` and `dedicated-thread@async` from a release `exp-runloop`
    /// beside `stress --cpu 2` (`.ci/load-check`): the async callers took 2.24 s, of which
    /// the last run loop was armed 1.21 s after its caller started.
    func verdict(
        asyncWall: Double, armedAfter: Double, blockedWall: Double = 23.02, blockedLoss: Double = 0.77,
        asyncLoss: Double = 0.207, lossAfterArming: Double? = nil
    ) throws -> Verdict {
        let options = try CommandLineParser(program: "exp-runloop", flags: runloopExperiment.flags).parse([])
        func report(_ name: RunloopVariant, _ pairs: [(String, Double)]) -> VariantReport {
            var metrics = Metrics()
            for (key, value) in pairs { metrics[key] = value }
            return VariantReport(name: name.rawValue, outcome: .completed, metrics: metrics)
        }
        let blocked = report(
            .dedicatedThread,
            [
                (RunloopMetric.total, 300), (RunloopMetric.completed, 300), (RunloopMetric.fired, 300),
                (RunloopMetric.wallS, blockedWall), (RunloopMetric.wallControlDelayS, blockedLoss),
                (RunloopMetric.latenessExcessP50Ms, 0.087), (RunloopMetric.latenessExcessMaxMs, 12.7),
                (RunloopMetric.inFlightPeak, 25), (RunloopMetric.callerDelayMaxS, 22.0),
                (RunloopMetric.armDelayMaxS, 0.051),
            ])
        let free = report(
            .dedicatedThreadAsync,
            [
                (RunloopMetric.total, 300), (RunloopMetric.completed, 300), (RunloopMetric.fired, 300),
                (RunloopMetric.wallS, asyncWall), (RunloopMetric.wallControlDelayS, asyncLoss),
                (RunloopMetric.inFlightPeak, 300), (RunloopMetric.armDelayMaxS, armedAfter),
            ]
                + (lossAfterArming.map {
                    [(RunloopMetric.armedLastS, armedAfter), (RunloopMetric.afterArmedControlDelayS, $0)]
                } ?? []))
        let inputs = FindingInputs(
            variants: [blocked.name: blocked, free.name: free], options: options, platform: .current,
            parsedParameters: try runloopExperiment.parameters(options))
        let finding = try XCTUnwrap(runloopExperiment.findings.first { $0.id == "runloop.blocked-callers-throttle" })
        return finding.evaluate(inputs)
    }

    func testRunLoopsArmedLateByTheMachineStillFinishAboutOneTimeoutAfterArming() throws {
        let loaded = try verdict(asyncWall: 2.236, armedAfter: 1.214)
        XCTAssertTrue(loaded.reproduced, loaded.summary)
        XCTAssertTrue(
            loaded.summary.contains("1.02 s after its last run loop was armed (1.21 s after its caller started)"),
            loaded.summary)
    }

    /// The loaded figures again, with 0.5 s more of the async run's wall lost to a stall after
    /// its last run loop was armed (the control lost 0.707 s in all): 1.02 s after arming net of
    /// it. Before, the stall after arming was not taken off (2.736 − max(0.707, 1.214) = 1.52 s,
    /// over 1.5 timeouts) and the finding read NOT REPRODUCED.
    func testAStallAfterTheLastArmingIsTakenOffTheWaitAfterIt() throws {
        let stalled = try verdict(asyncWall: 2.736, armedAfter: 1.214, asyncLoss: 0.707, lossAfterArming: 0.5)
        XCTAssertTrue(stalled.reproduced, stalled.summary)
        XCTAssertTrue(stalled.summary.contains("1.02 s after its last run loop was armed"), stalled.summary)
        // Async callers that really wait two timeouts after the last arming still refute it.
        let slow = try verdict(asyncWall: 3.3, armedAfter: 1.214, asyncLoss: 0.1, lossAfterArming: 0.05)
        XCTAssertFalse(slow.reproduced, slow.summary)
        XCTAssertEqual(slow.judged, true, slow.summary)
    }

    func testRunLoopsArmedWithinTheControlsLossAreJudgedOnTheWallNetOfTheControl() throws {
        let quiet = try verdict(asyncWall: 1.24, armedAfter: 0.031)
        XCTAssertTrue(quiet.reproduced, quiet.summary)
        XCTAssertFalse(quiet.summary.contains("armed"), "nothing taken off for set-up, nothing said: \(quiet.summary)")
    }

    /// Blocked callers that took 1.90 s of the machine's time against 1.03 s: short of twice, though
    /// a stall of 0.60 s the control saw during their run made their wall 2.50 s (the old rule read
    /// the blocked wall raw, and this reproduced).
    func testAStallDuringTheBlockedRunDoesNotMakeTheStretch() throws {
        let stalled = try verdict(asyncWall: 1.24, armedAfter: 0.031, blockedWall: 2.5, blockedLoss: 0.6)
        XCTAssertFalse(stalled.reproduced, stalled.summary)
        XCTAssertTrue(stalled.judged, stalled.summary)
        XCTAssertTrue(
            stalled.summary.contains("took 2.50 s, 1.90 s without the 600 ms a control thread lost to the machine"),
            stalled.summary)
    }

    func testAsyncCallersThatWaitTwoTimeoutsAfterArmingAreNotAboutOneTimeout() throws {
        let slow = try verdict(asyncWall: 2.236, armedAfter: 0.03)
        XCTAssertFalse(slow.reproduced, slow.summary)
        XCTAssertTrue(slow.judged)
    }
}
