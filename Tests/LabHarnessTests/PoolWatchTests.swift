@testable import LabHarness
import XCTest

/// The async `assertCompletes`'s control: what its failure adds for a pool held, a machine
/// stalled, and a wait that lost nothing notable (a quarter of the budget, at least 20 ms).
final class PoolWatchTests: XCTestCase {
    func testAHeldPoolAStalledMachineAndAQuietWaitReadApart() {
        let held = PoolWatch.clause(poolLost: 0.9, machineLost: 0.01, timeout: 0.3, stacks: nil)
        XCTAssertTrue(held.contains("the cooperative pool ran no new task for 890 ms of the wait"), held)
        XCTAssertFalse(held.contains("the whole machine stalled"), held)
        // A stall of the whole machine delays the control as much: that is not the pool's.
        let stalled = PoolWatch.clause(poolLost: 0.5, machineLost: 0.48, timeout: 0.3, stacks: nil)
        XCTAssertFalse(stalled.contains("cooperative pool"), stalled)
        XCTAssertTrue(stalled.contains("the whole machine stalled 480 ms"), stalled)
        XCTAssertEqual(PoolWatch.clause(poolLost: 0.05, machineLost: 0, timeout: 1, stacks: nil), "")
        // Without a thread of its own the watch cannot tell a stall from a held pool, and says so.
        let alone = PoolWatch.clause(poolLost: 0.9, machineLost: nil, timeout: 0.3, stacks: nil)
        XCTAssertTrue(alone.contains("the harness had no thread to tell which"), alone)
    }
}
