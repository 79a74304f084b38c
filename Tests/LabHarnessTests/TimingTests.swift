import Foundation
import LabHarness
import XCTest

final class TimingTests: XCTestCase {
    /// The known truth: the samples 1...100 have p50 50, p90 90, p99 99, max 100, mean 50.5.
    func testPercentilesOfKnownSamples() throws {
        let summary = try XCTUnwrap(LatencySummary((1...100).map(Double.init).shuffled()))
        XCTAssertEqual(summary.count, 100)
        XCTAssertEqual(summary.min, 1)
        XCTAssertEqual(summary.p50, 50)
        XCTAssertEqual(summary.p90, 90)
        XCTAssertEqual(summary.p99, 99)
        XCTAssertEqual(summary.max, 100)
        XCTAssertEqual(summary.mean, 50.5)
    }

    /// Nearest rank always returns an observed sample: with ten samples p99 is the maximum.
    func testNearestRankOnSmallSets() throws {
        let summary = try XCTUnwrap(LatencySummary([0.5, 0.1, 0.9, 0.3, 0.7, 0.2, 0.4, 0.6, 0.8, 1.0]))
        XCTAssertEqual(summary.p50, 0.5)
        XCTAssertEqual(summary.p90, 0.9)
        XCTAssertEqual(summary.p99, 1.0)
        XCTAssertEqual(try XCTUnwrap(LatencySummary([7])).p99, 7)
        XCTAssertNil(LatencySummary([]))
        XCTAssertNil(LatencySummary([Double.nan]))
        XCTAssertEqual(LatencySummary([1, .nan, 3])?.count, 2)
    }

    func testSummaryAsMetrics() throws {
        let metrics = try XCTUnwrap(LatencySummary([0.001, 0.002, 0.003])).metrics(
            prefix: "lateness", unit: "_ms", scale: 1000)
        XCTAssertEqual(metrics["lateness.p50_ms"], 2)
        XCTAssertEqual(metrics["lateness.max_ms"], 3)
        XCTAssertEqual(
            metrics.names,
            ["lateness.p50_ms", "lateness.p90_ms", "lateness.p99_ms", "lateness.max_ms", "lateness.mean_ms"])
    }

    /// Busy work costs CPU; sleeping costs (almost) none. Measured in CPU time, which does not
    /// depend on how busy the machine is.
    func testCPUTimeTellsBusyFromAsleep() throws {
        let threadStart = try XCTUnwrap(CPUTime.currentThread())
        let meter = CostMeter()
        var x = 0.0
        while (CPUTime.currentThread() ?? .infinity) - threadStart < 0.1 && meter.read().wall < 10 { x += 1 }
        let busy = meter.read()
        XCTAssertGreaterThan(x, 0)
        XCTAssertGreaterThanOrEqual(busy.cpu, 0.09)

        let sleepStart = try XCTUnwrap(CPUTime.currentThread())
        MonotonicClock.sleep(for: 0.3)
        let slept = try XCTUnwrap(CPUTime.currentThread()) - sleepStart
        XCTAssertLessThan(slept, 0.03)
    }

    func testMonotonicSleepWaitsAtLeastItsDuration() {
        let start = MonotonicClock.now()
        MonotonicClock.sleep(for: 0.05)
        XCTAssertGreaterThanOrEqual(MonotonicClock.now() - start, 0.05)
        MonotonicClock.sleep(until: start - 1)  // a past deadline returns at once
    }

    func testFormats() {
        XCTAssertEqual(Format.seconds(0.0042), "4.2 ms")
        XCTAssertEqual(Format.seconds(0.35), "350 ms")
        XCTAssertEqual(Format.seconds(1.5), "1.50 s")
        XCTAssertEqual(Format.seconds(23.44), "23.4 s")
        XCTAssertEqual(Format.seconds(0.0000042), "4 µs")
        XCTAssertEqual(Format.decimal(-0.004, places: 2), "0.00")
        XCTAssertEqual(Format.decimal(2.5, places: 0), "3")
        XCTAssertEqual(Format.number(0.01), "0.01")
        XCTAssertEqual(Format.number(300), "300")
        XCTAssertEqual(Format.milliseconds(1.234), "1.23 ms")
        XCTAssertEqual(Format.ratio(3, of: 300), "3/300")
        XCTAssertEqual(Format.ratio(nil, of: 300), "—")
        XCTAssertEqual(Format.seconds(.nan), "—")
    }
}
