import LabHarness
@testable import PoolExperiment
import XCTest

/// What probes felt is judged beyond each probe's same-moment control. A machine that stalled
/// through the whole window raises every probe's raw wait, so the raw figures alone made a pool
/// that kept most probes on time `starved` as soon as a few probes were held up.
final class ResponsivenessTests: XCTestCase {
    /// Idle probes of 50 µs at p50 and 200 µs at p99, net of stalls.
    private func outcome(rawP50: Double, rawP99: Double, excessP50: Double, excessP99: Double) -> Outcome {
        var m = Metrics()
        for (key, value) in [
            (PoolMetric.probeP50Ms, rawP50), (PoolMetric.probeP99Ms, rawP99),
            (PoolMetric.excessP50Ms, excessP50), (PoolMetric.excessP99Ms, excessP99),
            (PoolMetric.idleNetP50Ms, 0.05), (PoolMetric.idleNetP99Ms, 0.2),
        ] { m[key] = value }
        return Responsiveness.outcome(m)
    }

    /// Raw waits of 40 and 400 ms from a stall the control shared; beyond it, the typical probe
    /// waited 0.2 ms and a few 300 ms: slowed, not starved (the raw rule said starved).
    func testAStallTheControlSharedDoesNotMakeTheTypicalProbeStarved() {
        XCTAssertEqual(outcome(rawP50: 40, rawP99: 400, excessP50: 0.2, excessP99: 300), .slowed)
    }

    func testProbesHeldBehindTheFloodBeyondTheControlAreStarved() {
        XCTAssertEqual(outcome(rawP50: 900, rawP99: 1800, excessP50: 880, excessP99: 1750), .starved)
    }

    func testProbesWithinTheInstantFloorBeyondTheControlAreResponsive() {
        XCTAssertEqual(outcome(rawP50: 300, rawP99: 450, excessP50: 0.1, excessP99: 60), .responsive)
    }

    func testWithoutTheExcessFiguresNothingIsJudged() {
        var m = Metrics()
        m[PoolMetric.probeP50Ms] = 900
        m[PoolMetric.probeP99Ms] = 1800
        m[PoolMetric.idleNetP50Ms] = 0.05
        m[PoolMetric.idleNetP99Ms] = 0.2
        XCTAssertEqual(Responsiveness.outcome(m), .failed)
    }
}
