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
}
