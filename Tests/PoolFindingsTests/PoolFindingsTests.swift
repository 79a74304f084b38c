import FindingsTestSupport
import Foundation
import LabHarness
import LabHarnessXCTest
@testable import PoolExperiment
import XCTest

/// exp-pool's findings as living documentation. The real `exp-pool` executable runs once with
/// `--quick` (every variant in its own child process, on a fresh pool) and each test reads its
/// finding's verdict and its variants' outcomes from that run: the thresholds live in the
/// experiment (`PoolVerdicts`, `Responsiveness`), so a test asserts what was judged, and only
/// orderings between measured figures besides.
final class PoolFindingsTests: XCTestCase {
    private static let run = Result {
        // The `--quick` run `lab all` made for every suite (`SharedQuickLabAll`), else its own.
        try SharedQuickLabAll.report(of: poolExperiment, lab: BuiltProducts.executable("lab"))
            ?? ExperimentRunner.run(
                poolExperiment, arguments: ["--quick"], executable: BuiltProducts.executable("exp-pool"))
    }

    private func report() throws -> ExperimentReport { try Self.run.get() }

    private func variant(_ name: PoolVariant) throws -> VariantReport { try XCTUnwrap(report().variant(name)) }

    /// Blocks on the global queue outnumber its threads: they start in waves as threads free up
    /// or, slowly, as the pool adds one.
    func testGlobalQueueIsBounded() throws {
        try assertReproduced("pool.global-queue-is-bounded", in: report(), of: poolExperiment)
        let flood = try variant(.globalFlood)
        XCTAssertLessThan(
            try XCTUnwrap(flood[PoolMetric.runningMax]), try XCTUnwrap(flood[PoolMetric.tasks]),
            "a thread per block would have run every block at once")
        XCTAssertFalse(flood.series?[SeriesKey.threads]?.isEmpty ?? true, "the thread timeline is in the report")
    }

    /// A tiny block queued behind the flood waits for seconds; on the idle pool it waits microseconds.
    func testFloodStarvesUnrelatedWork() throws {
        try assertReproduced("pool.flood-starves-unrelated-work", in: report(), of: poolExperiment)
        let flood = try variant(.globalFlood)
        XCTAssertEqual(flood.outcome, .starved)
        XCTAssertGreaterThan(try XCTUnwrap(flood[PoolMetric.probeBehind]), 0, "probes were seen queued behind blocks")
        XCTAssertFalse(flood.series?[SeriesKey.probeWait]?.isEmpty ?? true, "probe waits are in the report")
    }

    /// With a gate narrower than the pool, probes start about as fast as on the idle pool, while
    /// the flood next to it makes them wait far longer.
    func testGateKeepsLatency() throws {
        try assertReproduced("pool.gate-keeps-latency", in: report(), of: poolExperiment)
        let gated = try variant(.gated), flood = try variant(.globalFlood)
        XCTAssertEqual(gated.outcome, .responsive)
        // Excess: a probe's wait beyond its same-moment control, so a stall of the whole machine
        // does not count against the gate.
        XCTAssertLessThan(
            try XCTUnwrap(gated[PoolMetric.excessP99Ms]), try XCTUnwrap(flood[PoolMetric.probeP50Ms]),
            "the gate's worst probe waits less than the flood's typical probe")
        XCTAssertLessThanOrEqual(
            try XCTUnwrap(gated[PoolMetric.runningMax]), try XCTUnwrap(gated[PoolMetric.gate]), "the gate holds")
    }

    /// The same delays as `asyncAfter` timers all elapse without holding threads.
    func testTimersHoldNoThreads() throws {
        try assertReproduced("pool.timers-hold-no-threads", in: report(), of: poolExperiment)
        let timers = try variant(.nonBlocking)
        XCTAssertEqual(timers.outcome, .completed)
        XCTAssertEqual(timers[PoolMetric.blocksStarted], timers[PoolMetric.tasks], "every timer fired")
        // The rule applied to the same run's flood, whose blocks hold their threads: they start
        // in waves, and must not pass for timers even where the pool adds too few threads to tell.
        let flood = try variant(.globalFlood)
        let starts = try XCTUnwrap(flood.series?["started"]).map { $0[0] }
        let spread = NonBlocking.startSpread(starts) { _, _ in 0 }
        XCTAssertEqual(starts.count, Int(try XCTUnwrap(flood[PoolMetric.tasks])), "every flood block started")
        XCTAssertEqual(
            NonBlocking.outcome(
                fired: true, added: 0, cores: 1, spreadNet: spread.net, block: try XCTUnwrap(flood[PoolMetric.blockS])),
            .heldThreads, "the flood's blocks started over \(spread.raw) s")
    }

    /// Blocks that hold a thread for the delay (`global().async { sleep(block); begin() }`) on
    /// Linux's pool, which adds about one thread a second, add no more threads than the cores in
    /// a `--quick` window: only their starts tell them from timers. Timers all fire within their
    /// leeway (a tenth of the delay); held threads free up one block apart.
    func testTimersAreToldFromThreadHoldingBlocksByWhenTheyStart() {
        let block = 0.5, waves = [0.5, 0.5, 0.5, 1.0, 1.0, 1.0, 1.5, 1.5], none = { (_: Seconds, _: Seconds) in 0.0 }
        let held = NonBlocking.startSpread(waves, machineDelay: none)
        XCTAssertEqual(
            NonBlocking.outcome(fired: true, added: 2, cores: 2, spreadNet: held.net, block: block), .heldThreads)
        let jittered = waves.indices.map { block + 0.006 * Double($0) }  // within a leeway of 50 ms
        let timers = NonBlocking.startSpread(jittered, machineDelay: none)
        XCTAssertEqual(
            NonBlocking.outcome(fired: true, added: 1, cores: 2, spreadNet: timers.net, block: block), .completed)
        // A stall the control saw too spreads the timers' starts without being theirs.
        let stalled = NonBlocking.startSpread([0.5, 0.5, 0.9]) { from, to in to - from - 0.01 }
        XCTAssertEqual(
            NonBlocking.outcome(fired: true, added: 1, cores: 2, spreadNet: stalled.net, block: block), .completed)
        XCTAssertEqual(
            NonBlocking.outcome(fired: true, added: 3, cores: 2, spreadNet: timers.net, block: block), .heldThreads)
    }

    /// Swift's cooperative pool is as wide as the cores: blocking tasks run one per core, in
    /// waves; `await Task.sleep` lets every task proceed together.
    func testCooperativePoolIsCoreWide() throws {
        try assertReproduced("pool.cooperative-pool-is-core-wide", in: report(), of: poolExperiment)
        let blocking = try variant(.cooperativeBlocking), sleeping = try variant(.cooperativeSleep)
        XCTAssertEqual(blocking[PoolMetric.runningMax], blocking[PoolMetric.cores])
        XCTAssertEqual(sleeping[PoolMetric.runningMax], sleeping[PoolMetric.tasks])
        // Blocking tasks start in waves, one hold apart; sleeping ones all start before the first ends.
        XCTAssertGreaterThan(
            try XCTUnwrap(blocking[PoolMetric.blocksLastStartS]), try XCTUnwrap(blocking[PoolMetric.holdS]))
        XCTAssertLessThan(
            try XCTUnwrap(sleeping[PoolMetric.blocksLastStartS]), try XCTUnwrap(sleeping[PoolMetric.holdS]))
    }

    /// The flood by itself does not freeze the UI: the main thread is not a pool thread, so
    /// while every pool thread is held and blocks still wait for one, the main run loop's
    /// heartbeat keeps coming every frame. The same run then shows what does freeze it: the
    /// main thread waiting for a block it put on the flooded global queue gets no tick for as
    /// long as that block waits for a thread.
    func testTheFloodSparesTheMainThreadUntilItWaitsOnThePool() throws {
        try assertReproduced("pool.flood-spares-main-thread", in: report(), of: poolExperiment)
        try assertReproduced("pool.main-waiting-on-pool-freezes", in: report(), of: poolExperiment)
        let main = try variant(.mainThread)
        XCTAssertEqual(main.outcome, .frozen)
        XCTAssertEqual(main[PoolMetric.mainWaitReturned], 1, "the block did run in the end: a freeze, not a deadlock")
        XCTAssertGreaterThan(
            try XCTUnwrap(main[PoolMetric.freezeGapMaxMs]), try XCTUnwrap(main[PoolMetric.spareGapMaxMs]),
            "waiting on the pool stopped the heartbeat longer than the flood did")
    }

    /// The freeze rule is judged against the run's own block length and the frame, not a fixed
    /// time: a freeze just under one block (492 ms of 500 ms blocks, once under load) is one,
    /// even after the largest gap the flood alone may cost; a gap under half a block, or under
    /// the factor's frames, is not; a long gap during the flood alone means the flood reached
    /// the main thread.
    func testTheFreezeRule() {
        let frame = MainThread.frame, block = 0.5
        let floor = PoolVerdicts.freezeFloor.value * block, factor = PoolVerdicts.freezeFactor.value
        XCTAssertEqual(MainThread.freezeOutcome(block: block, spareNet: frame, frozenNet: 0.98 * block), .frozen)
        XCTAssertEqual(
            MainThread.freezeOutcome(block: block, spareNet: frame, frozenNet: 0.99 * floor), .responsive,
            "under the floor")
        let before = PoolVerdicts.sparedGap.value * frame  // the most the flood alone may cost
        XCTAssertEqual(
            MainThread.freezeOutcome(block: block, spareNet: before, frozenNet: 0.49), .frozen,
            "a gap of 98% of a block after the largest spared gap")
        let short = 0.1  // blocks so short that half of one is under the factor's frames
        XCTAssertEqual(
            MainThread.freezeOutcome(block: short, spareNet: before, frozenNet: 0.99 * factor * frame), .responsive,
            "under the factor")
        XCTAssertEqual(MainThread.freezeOutcome(block: short, spareNet: before, frozenNet: factor * frame), .frozen)
        XCTAssertEqual(
            MainThread.freezeOutcome(
                block: block, spareNet: 1.01 * PoolVerdicts.sparedGap.value * frame, frozenNet: 2 * block), .starved)
        // The cause, net of the machine too: a short wait a 300 ms stall stretched past the floor
        // is no freeze of the pool's (its gap net of the stall is 10 ms), nor a wait behind no block.
        XCTAssertEqual(MainThread.freezeOutcome(block: block, spareNet: frame, frozenNet: 0.31 - 0.30), .responsive)
        XCTAssertFalse(MainThread.waitMechanism(ahead: 1, waited: 0.31, waitedNet: 0.01, block: block).seen)
        XCTAssertFalse(MainThread.waitMechanism(ahead: 0, waited: 1, waitedNet: 1, block: block).seen)
        XCTAssertTrue(MainThread.waitMechanism(ahead: 6, waited: 1, waitedNet: 0.98, block: block).seen)
        XCTAssertFalse(MainThread.waitMechanism(ahead: 6, waited: 1, waitedNet: 0.99 * floor, block: block).seen)
    }
}
