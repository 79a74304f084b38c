import Foundation
@testable import LabHarness
@testable import PoolExperiment
import XCTest

/// The flood's premise, "more blocked blocks than the pool has threads", sized from the platform:
/// Linux's figures where the kernel states no limit, past the limit where it states one
/// (Darwin's kern.wq_max_constrained_threads), judged here on made-up limits since this
/// machine's kernel states none.
final class PoolSizingTests: XCTestCase {
    func testWithoutAStatedLimitTheFiguresStayLinuxs() {
        let none = DispatchPoolSize(statedLimit: nil, statedTotal: nil)
        XCTAssertEqual(none.floodSize(base: 20, beyond: 20), 20)
        XCTAssertEqual(none.floodSize(base: 300, poolsFull: 2, beyond: 8), 300)
        XCTAssertNil(none.tooFewToExhaust(3, what: "blocks"))
        XCTAssertNil(none.statement)
    }

    func testAStatedLimitIsExceeded() {
        let mac = DispatchPoolSize(statedLimit: 64, statedTotal: 512)
        XCTAssertEqual(mac.floodSize(base: 20, beyond: 20), 84)
        XCTAssertEqual(mac.floodSize(base: 8, beyond: 8), 72)
        XCTAssertEqual(mac.floodSize(base: 40, poolsFull: 2, beyond: 8), 136)
        XCTAssertEqual(
            mac.floodSize(base: 300, poolsFull: 2, beyond: 8), 300, "the article's 300 already fill 64 twice over")
        let why = mac.tooFewToExhaust(20, what: "blocks")
        XCTAssertTrue(why?.contains("64 threads") == true && why?.contains("more than 64") == true, why ?? "nil")
        XCTAssertNil(mac.tooFewToExhaust(65, what: "blocks"))
        XCTAssertEqual(
            mac.statement,
            "the kernel states a pool of 64 threads (kern.wq_max_constrained_threads; 512 workqueue threads in all)")
    }

    /// This machine: Linux states no limit, so the defaults are the ones the handouts measured.
    func testThisMachinesDefaultsMatchWhatItsKernelStates() {
        if let limit = DispatchPoolSize.current.statedLimit {
            XCTAssertGreaterThan(PoolParameters.defaultTasks, limit)
            XCTAssertGreaterThan(PoolParameters.quickTasks, limit)
        } else {
            XCTAssertEqual(PoolParameters.defaultTasks, 20)
            XCTAssertEqual(PoolParameters.quickTasks, 8)
        }
    }

    /// With a stated limit, "bounded" means at most the limit ran at once while more blocks
    /// waited; growth is quoted, not judged (Darwin adds a worker as soon as one blocks).
    func testBoundedIsJudgedAgainstTheStatedLimit() throws {
        let options = try poolExperiment.parser.parse([])
        let slack = PoolVerdicts.statedLimitSlack.value, fast = PoolVerdicts.slowGrowth.value + 1
        func verdict(tasks: Double, atOnce: Double, rate: Double, limit: Double?) -> Verdict {
            var m = Metrics()
            m[PoolMetric.tasks] = tasks
            m[PoolMetric.runningMax] = atOnce
            m[PoolMetric.threadsBefore] = 3
            m[PoolMetric.threadsPeak] = atOnce + 3
            m[PoolMetric.growthThreadsPerS] = rate
            m[PoolMetric.blocksStarted] = tasks
            m[PoolMetric.poolStatedLimit] = limit
            let name = PoolVariant.globalFlood.rawValue
            let report = VariantReport(
                name: name, outcome: .starved, metrics: m, mechanism: .seen("blocks held the threads"))
            return PoolVerdicts.globalQueueIsBounded(
                FindingInputs(variants: [name: report], options: options, platform: .current))
        }
        XCTAssertTrue(verdict(tasks: 84, atOnce: 64, rate: fast, limit: 64).reproduced)
        XCTAssertFalse(verdict(tasks: 84, atOnce: 84, rate: fast, limit: 64).reproduced, "every block ran at once")
        XCTAssertFalse(
            verdict(tasks: 84, atOnce: 64 + slack + 1, rate: fast, limit: 64).reproduced, "past the stated limit")
        XCTAssertTrue(
            verdict(tasks: 84, atOnce: 64, rate: fast, limit: 64).summary.contains("kern.wq_max_constrained_threads"))
        XCTAssertFalse(
            verdict(tasks: 20, atOnce: 6, rate: fast, limit: nil).reproduced,
            "without a stated limit, fast growth is not the finding")
        XCTAssertTrue(verdict(tasks: 20, atOnce: 6, rate: 1, limit: nil).reproduced)
    }

    /// `--find-cap` whose budget ran out with the count still rising (`timed-out`) found no cap
    /// and no absence of one: not judged. Every block getting a thread (`completed`) refutes it.
    func testACapSearchOutOfBudgetIsNotJudged() throws {
        let options = try poolExperiment.parser.parse(["--find-cap"])
        func verdict(_ outcome: Outcome) -> Verdict {
            var m = Metrics()
            for (key, value) in [
                (PoolMetric.tasks, 400.0), (PoolMetric.runningMax, 250), (PoolMetric.threadsBefore, 3),
                (PoolMetric.threadsPeak, 253), (PoolMetric.growthThreadsPerS, 1), (PoolMetric.capReachedS, 299),
                (PoolMetric.blocksStarted, outcome == .completed ? 400 : 250),
            ] { m[key] = value }
            let name = PoolVariant.globalFlood.rawValue
            let report = VariantReport(name: name, outcome: outcome, metrics: m, mechanism: .seen("blocks held threads"))
            return PoolVerdicts.globalQueueIsBounded(
                FindingInputs(variants: [name: report], options: options, platform: .current))
        }
        let outOfBudget = verdict(.timedOut)
        XCTAssertFalse(outOfBudget.judged, outOfBudget.summary)
        XCTAssertEqual(outOfBudget.status, .notJudged(.variantMissing))
        let everyBlockRan = verdict(.completed)
        XCTAssertTrue(everyBlockRan.judged && !everyBlockRan.reproduced, everyBlockRan.summary)
    }

    /// `--find-cap`: a plateau with blocks still waiting is the bounded finding's, not the
    /// flood's claim that probes starve. A search whose probes ran at once beyond their control
    /// (excess 0) must not reproduce `pool.flood-starves-unrelated-work`; starved ones still do.
    func testACapWhoseProbesDidNotStarveDoesNotReproduceStarvation() throws {
        let flood = try XCTUnwrap(poolExperiment.variants.first { $0.name == PoolVariant.globalFlood.rawValue })
        let claim = try XCTUnwrap(flood.claim)
        func report(excessMs: Double) -> FindingReport {
            var m = Metrics()
            for (key, value) in [
                (PoolMetric.excessP50Ms, excessMs), (PoolMetric.excessP99Ms, excessMs),
                (PoolMetric.idleNetP50Ms, 0.05), (PoolMetric.idleNetP99Ms, 0.2),
                (PoolMetric.capThreads, 255), (PoolMetric.capWorkers, 250),
            ] { m[key] = value }
            let outcome = GlobalFlood.capSearchOutcome(plateau: true, waiting: 150, probes: Responsiveness.outcome(m))
            let variant = VariantReport(
                name: flood.name, outcome: outcome, metrics: m, mechanism: .seen("blocks held threads"))
            return claim.report(variant, expectations: flood.expectations)
        }
        XCTAssertFalse(report(excessMs: 0).reproduced, report(excessMs: 0).summary)
        XCTAssertTrue(report(excessMs: 10_000).reproduced, report(excessMs: 10_000).summary)
    }
}
