import LabHarness
@testable import PoolExperiment
import XCTest

/// Premises sized from the core count are sized from the CPUs the process may use (the
/// affinity mask libdispatch sizes its pool from), and say "not applicable to this run" when
/// they cannot hold: on one usable CPU no gate is narrower than the pool.
final class CoreCountPremiseTests: XCTestCase {
    func testAGateAsWideAsThePoolIsNotApplicableWithTheReason() {
        let oneCPU = CPUBudget(online: 2, affinity: 1, quota: nil)
        let reason = PoolVerdicts.gateNotNarrower(gate: 1, budget: oneCPU, statedLimit: nil)
        XCTAssertNotNil(reason)
        XCTAssertTrue(reason?.contains("1 of 2 online CPUs in the affinity mask") == true, reason ?? "")
        XCTAssertTrue(reason?.contains("on one usable CPU") == true, reason ?? "")
        XCTAssertNil(
            PoolVerdicts.gateNotNarrower(
                gate: 1, budget: CPUBudget(online: 2, affinity: 2, quota: nil), statedLimit: nil),
            "a one-slot gate on a two-worker pool holds the premise")
        XCTAssertNil(
            PoolVerdicts.gateNotNarrower(
                gate: 1, budget: CPUBudget(online: 2, affinity: 2, quota: 1), statedLimit: nil),
            "a quota does not narrow libdispatch's pool")
        XCTAssertNotNil(
            PoolVerdicts.gateNotNarrower(
                gate: 2, budget: CPUBudget(online: 2, affinity: 2, quota: nil), statedLimit: nil),
            "--gate 2 on two CPUs fills the pool")
        XCTAssertNil(
            PoolVerdicts.gateNotNarrower(gate: 4, budget: oneCPU, statedLimit: 64),
            "a kernel that adds a worker per blocked one (Darwin) has a pool wider than any gate")
    }

    func testTheCooperativeWidthIsUnsettledWhenTheMaskIsNarrowerThanTheCPUsOnline() {
        XCTAssertNotNil(PoolVerdicts.cooperativeWidthUnsettled(budget: CPUBudget(online: 2, affinity: 1, quota: nil)))
        XCTAssertNil(PoolVerdicts.cooperativeWidthUnsettled(budget: CPUBudget(online: 2, affinity: 2, quota: nil)))
        XCTAssertNil(PoolVerdicts.cooperativeWidthUnsettled(budget: CPUBudget(online: 8, affinity: nil, quota: nil)))
    }

    func testTheDefaultGateIsSizedFromThePoolNotTheCPUsOnline() {
        XCTAssertEqual(defaultGateWidth, max(1, CPUBudget.current.poolWidth - 1))
    }
}
