import Foundation
import LabHarness
import LabHarnessXCTest
import PoolExperiment
import XCTest

/// exp-pool's findings as living documentation. Each test runs the real `exp-pool` executable
/// with `--quick` (every flood in its own child process, on a fresh pool) and checks its finding
/// with orderings and wide ratios, never with thread counts that depend on the machine: the one
/// exception is the cooperative pool's width, which is the core count by design.
final class PoolFindingsTests: XCTestCase {
    private func run(_ variants: String, _ extra: [String] = []) throws -> ExperimentReport {
        try ExperimentRunner.run(poolExperiment, arguments: ["--quick", "--variant", variants] + extra,
                                 executable: BuiltProducts.executable("exp-pool"))
    }

    private func assertReproduced(_ report: ExperimentReport, _ id: String, file: StaticString = #filePath, line: UInt = #line) {
        guard let finding = report.finding(id) else { return XCTFail("\(id) was not evaluated", file: file, line: line) }
        XCTAssertTrue(finding.applicable, finding.summary, file: file, line: line)
        XCTAssertTrue(finding.reproduced, finding.summary, file: file, line: line)
    }

    /// Blocks on the global queue outnumber its threads: they start in waves as threads free up
    /// or, slowly, as the pool adds one.
    func testGlobalQueueIsBounded() throws {
        let report = try run("global-flood")
        assertReproduced(report, "pool.global-queue-is-bounded")
        let m = try XCTUnwrap(report.variant(PoolVariant.globalFlood)).metrics
        let tasks = try XCTUnwrap(m["tasks"]), block = try XCTUnwrap(m["block_s"])
        XCTAssertLessThan(try XCTUnwrap(m["running.max"]), tasks, "a thread per block would have run every block at once")
        if let last = m["blocks.last_start_s"] {
            XCTAssertGreaterThanOrEqual(last, 0.9 * block, "the last block waited for an earlier one to give its thread back")
        } else {
            XCTAssertLessThan(try XCTUnwrap(m["blocks.started"]), tasks, "blocks still waiting when the watch ended")
        }
        XCTAssertLessThanOrEqual(m["growth.threads_per_s"] ?? 0, 5, "the pool grows by about one thread a second, not per block")
        XCTAssertGreaterThan(report.variant(PoolVariant.globalFlood)?.series?["threads"]?.count ?? 0, 10, "the thread timeline is in the report")
    }

    /// A tiny block queued behind the flood waits for seconds; on the idle pool it waits microseconds.
    func testFloodStarvesUnrelatedWork() throws {
        let report = try run("global-flood")
        assertReproduced(report, "pool.flood-starves-unrelated-work")
        let flood = try XCTUnwrap(report.variant(PoolVariant.globalFlood))
        XCTAssertEqual(flood.outcome, .starved)
        let m = flood.metrics
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(m["probe.p50_ms"]), 10 * (try XCTUnwrap(m["idle.p50_ms"])))
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(m["probe.p99_ms"]), 10 * (try XCTUnwrap(m["idle.p99_ms"])))
        XCTAssertFalse(flood.series?["probe_ms"]?.isEmpty ?? true, "probe waits are in the report")
    }

    /// With a gate narrower than the pool, probes start about as fast as on the idle pool, while
    /// the flood next to it makes them wait far longer.
    func testGateKeepsLatency() throws {
        let report = try run("gated,global-flood")
        assertReproduced(report, "pool.gate-keeps-latency")
        let gated = try XCTUnwrap(report.variant(PoolVariant.gated)).metrics
        let flood = try XCTUnwrap(report.variant(PoolVariant.globalFlood)).metrics
        // Excess: a probe's wait beyond its same-moment control, so a stall of the whole machine
        // does not count against the gate.
        XCTAssertLessThan(try XCTUnwrap(gated["excess.p99_ms"]), try XCTUnwrap(flood["probe.p50_ms"]),
                          "the gate's worst probe waits less than the flood's typical probe")
        XCTAssertLessThanOrEqual(try XCTUnwrap(gated["threads.added"]), try XCTUnwrap(gated["gate"]) + 2)
        XCTAssertLessThanOrEqual(try XCTUnwrap(gated["running.max"]), try XCTUnwrap(gated["gate"]), "the gate holds")
    }

    /// The same delays as `asyncAfter` timers all elapse without holding threads.
    func testTimersHoldNoThreads() throws {
        let report = try run("non-blocking")
        assertReproduced(report, "pool.timers-hold-no-threads")
        let timers = try XCTUnwrap(report.variant(PoolVariant.nonBlocking))
        XCTAssertEqual(timers.outcome, .completed)
        XCTAssertEqual(timers.metrics["blocks.started"], timers.metrics["tasks"], "every timer fired")
        XCTAssertLessThanOrEqual(try XCTUnwrap(timers.metrics["threads.added"]),
                                 Double(ProcessInfo.processInfo.activeProcessorCount))
    }

    /// Swift's cooperative pool is as wide as the cores: blocking tasks run one per core, in
    /// waves; `await Task.sleep` lets every task proceed together.
    func testCooperativePoolIsCoreWide() throws {
        let report = try run("cooperative-blocking,cooperative-sleep")
        assertReproduced(report, "pool.cooperative-pool-is-core-wide")
        let blocking = try XCTUnwrap(report.variant(PoolVariant.cooperativeBlocking)).metrics
        let sleeping = try XCTUnwrap(report.variant(PoolVariant.cooperativeSleep)).metrics
        XCTAssertEqual(blocking["running.max"], Double(ProcessInfo.processInfo.activeProcessorCount))
        XCTAssertEqual(sleeping["running.max"], sleeping["tasks"])
        // Blocking tasks start in waves, one hold apart; sleeping ones all start before the first ends.
        let hold = try XCTUnwrap(blocking["hold_s"])
        let tasks = try XCTUnwrap(blocking["tasks"]), cores = try XCTUnwrap(blocking["cores"])
        let waves = tasks / cores
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(blocking["blocks.last_start_s"]), 0.9 * (waves - 1) * hold)
        XCTAssertLessThan(try XCTUnwrap(sleeping["blocks.last_start_s"]), try XCTUnwrap(sleeping["hold_s"]))
    }

    /// The cap search takes minutes, so it runs only when asked for.
    func testFindCapIsNotInTheDefaultRun() throws {
        let plain = try poolExperiment.parser.parse([])
        XCTAssertEqual(poolExperiment.defaultPlan(plain, poolExperiment.variants),
                       ["global-flood", "gated", "serial-queue", "non-blocking", "cooperative-blocking", "cooperative-sleep", "main-thread"])
        XCTAssertFalse(plain.bool("find-cap"))
        let capped = try poolExperiment.parser.parse(["--find-cap"])
        XCTAssertEqual(poolExperiment.defaultPlan(capped, poolExperiment.variants), ["global-flood"])
    }
}
