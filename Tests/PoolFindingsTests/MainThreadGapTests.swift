import Foundation
import LabHarness
@testable import PoolExperiment
import XCTest

/// main-thread's heartbeat gaps are judged net of the machine: the main thread's own wait for a
/// CPU between two ticks, not only a control thread's. On a loaded machine the two are not held
/// up alike, and a gap the main thread spent runnable was graded `starved` (a forbidden outcome:
/// "the flood reached the main thread") in 1 of 10 release `lab all --quick` runs at load 12.
final class MainThreadGapTests: XCTestCase {
    private func context() throws -> VariantContext {
        let options = try poolExperiment.parser.parse(["--quick"])
        return VariantContext(
            variant: PoolVariant.mainThread.rawValue, options: options, inChild: false,
            parameters: PoolParameters(options))
    }

    func testAGapTheMainThreadSpentWaitingForACPUIsTheMachines() throws {
        let waits = MainWaits(), frame = MainThread.frame
        let ticks: [Seconds] = [100, 100 + frame, 100 + 5 * frame, 100 + 6 * frame]
        // Runnable but off a CPU for 3.5 frames of the 4-frame gap.
        for (tick, waited) in zip(ticks, [0.010, 0.010, 0.010 + 3.5 * frame, 0.010 + 3.5 * frame]) {
            waits.sample(at: tick, waited: waited)
        }
        let gaps = MainThread.gaps(ticks, from: ticks[0], to: ticks[3], try context(), waits)
        XCTAssertEqual(gaps.largest, 4 * frame, accuracy: 1e-9)
        XCTAssertEqual(gaps.largestNet, frame, accuracy: 1e-9, "the gap less what the main thread waited for a CPU")
        XCTAssertEqual(MainThread.freezeOutcome(block: 0.5, spareNet: gaps.largestNet, frozenNet: 0.5), .frozen)
    }

    func testAGapTheMainThreadDidNotWaitForIsTheFloods() throws {
        let waits = MainWaits(), frame = MainThread.frame
        let ticks: [Seconds] = [100, 100 + frame, 100 + 5 * frame, 100 + 6 * frame]
        for tick in ticks { waits.sample(at: tick, waited: 0.010) }
        let gaps = MainThread.gaps(ticks, from: ticks[0], to: ticks[3], try context(), waits)
        XCTAssertEqual(gaps.largestNet, 4 * frame, accuracy: 1e-9)
        XCTAssertEqual(MainThread.freezeOutcome(block: 0.5, spareNet: gaps.largestNet, frozenNet: 0.5), .starved)
    }

    /// "Ticks kept" counts the frames the machine left the main thread: the window less the
    /// larger of the control thread's delay and the main thread's own run-queue wait, as its
    /// gaps are judged. `--quick`: a 0.5 s window (30 frames) in which the main thread waited
    /// 130 ms for a CPU in gaps each under 3 frames, the control thread not at all: 22 ticks
    /// are all the machine left it, and the flood spared it.
    func testTicksTheMainThreadLostWaitingForACPUAreTheMachines() throws {
        var m = Metrics()
        for (key, value) in [
            (PoolMetric.spareTicks, 22), (PoolMetric.spareWindowS, 0.5), (PoolMetric.spareGapMaxMs, 45),
            (PoolMetric.spareGapMaxNetMs, 20), (PoolMetric.spareBlocksWaiting, 6), (PoolMetric.tasks, 8),
            (PoolMetric.spareControlDelayS, 0), (PoolMetric.spareMainRunQueueWaitS, 0.13),
        ] { m[key] = value }
        let name = PoolVariant.mainThread.rawValue
        let report = VariantReport(name: name, outcome: .frozen, metrics: m, mechanism: .seen("blocks waited"))
        let verdict = PoolVerdicts.floodSparesMainThread(
            FindingInputs(variants: [name: report], options: try poolExperiment.parser.parse(["--quick"]),
                platform: .current))
        XCTAssertTrue(verdict.reproduced, verdict.summary)
        m[PoolMetric.spareMainRunQueueWaitS] = 0
        let unexplained = PoolVerdicts.floodSparesMainThread(
            FindingInputs(
                variants: [name: VariantReport(name: name, outcome: .frozen, metrics: m, mechanism: .seen("waited"))],
                options: try poolExperiment.parser.parse(["--quick"]), platform: .current))
        XCTAssertFalse(unexplained.reproduced, "8 frames lost that neither the machine nor the main thread explains")
    }
}
