import Foundation
import LabHarness
import LabHarnessXCTest
import PoolExperiment
import XCTest

/// The article's "the app freezes", measured where an app freezes: on the main thread. The
/// `main-thread` variant gives the main thread a 60 Hz heartbeat on its run loop, floods the
/// global queue, and later makes the main thread wait for a block it put on that queue.
/// Gaps are judged against the heartbeat's own gaps in the same run and net of a same-moment
/// control thread, never against a limit a stall of the machine could cross.
final class MainThreadFindingsTests: XCTestCase {
    private func runMainThread() throws -> ExperimentReport {
        try ExperimentRunner.run(poolExperiment, arguments: ["--quick", "--variant", PoolVariant.mainThread.rawValue],
                                 executable: BuiltProducts.executable("exp-pool"))
    }

    /// The flood by itself does not freeze the UI: the main thread is not a pool thread, so
    /// while every pool thread is held and blocks still wait for one, the main run loop's
    /// heartbeat keeps coming every frame. The same run then shows what does freeze it: the
    /// main thread waiting for a block it put on the flooded global queue gets no tick for as
    /// long as that block waits for a thread, many times its largest gap before.
    func testTheFloodSparesTheMainThreadUntilItWaitsOnThePool() throws {
        let report = try runMainThread()
        for id in ["pool.flood-spares-main-thread", "pool.main-waiting-on-pool-freezes"] {
            let finding = try XCTUnwrap(report.finding(id), id)
            XCTAssertTrue(finding.reproduced, "\(id): \(finding.summary)")
        }
        let v = try XCTUnwrap(report.variant(PoolVariant.mainThread))
        XCTAssertEqual(v.outcome, .frozen)
        let m = v.metrics
        XCTAssertGreaterThan(try XCTUnwrap(m["spare.blocks_waiting"]), 0, "the pool was exhausted while the heartbeat was watched")
        let window = try XCTUnwrap(m["spare.window_s"])
        // A stall of the whole machine costs every thread its ticks: the control says how long.
        let machine = m["spare.control_delay_s"] ?? 0
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(m["spare.ticks"]), 0.8 * (window - machine) * 60, "most frames ticked through the flood")
        let before = max(try XCTUnwrap(m["spare.gap_max_net_ms"]), 1000.0 / 60), frozen = try XCTUnwrap(m["freeze.gap_max_ms"])
        XCTAssertGreaterThanOrEqual(frozen, 10 * before, "waiting on the pool stopped the heartbeat far longer than the flood did")
        XCTAssertEqual(m["main_wait.returned"], 1, "the block did run in the end: a freeze, not a deadlock")
        // The freeze is the wait: no tick could come while the main thread was blocked.
        XCTAssertGreaterThanOrEqual(frozen / 1000, 0.99 * (try XCTUnwrap(m["main_wait_s"])))
    }
}
