import Dispatch
import LabHarness
@testable import RunloopExperiment
import XCTest

/// The per-item step table and the now/peak gauge: written from many threads at once, read
/// whole afterwards. Both are exp-runloop's own (`RunloopExperiment/StepTable.swift`).
final class StepTableTests: XCTestCase {
    struct Row: Sendable, Equatable {
        var started: Seconds?
        var done: Seconds?
        var thread = 0
    }

    func testStepsMarkedFromManyThreadsAreAllKeptAndCounted() {
        let table = StepTable(count: 200, row: Row())  // more rows than lock stripes, not a multiple of them
        DispatchQueue.concurrentPerform(iterations: 200) { i in
            table.mark(i, \.started)
            if i.isMultiple(of: 2) { table.mark(i, \.done, 42) }
            table.update(i) { $0.thread = i }
        }
        let rows = table.snapshot()
        XCTAssertEqual(rows.count, 200)
        XCTAssertEqual(table.count(\.started), 200, "every row's first step was kept")
        XCTAssertEqual(table.count(\.done), 100, "only the rows that reached the step count")
        XCTAssertEqual(rows.compactMap(\.done), Array(repeating: 42, count: 100), "a given value is recorded as is")
        XCTAssertEqual(rows.map(\.thread), Array(0..<200), "each row was changed only through its own index")
        XCTAssertEqual(table[3], rows[3])
        XCTAssertNil(table[1].done)
    }

    func testSmallAndEmptyTables() {
        XCTAssertEqual(StepTable(count: 0, row: Row()).snapshot(), [])
        let one = StepTable(count: 1, row: Row())
        one.mark(0, \.done, 7)
        XCTAssertEqual(one.snapshot(), [Row(started: nil, done: 7, thread: 0)])
        XCTAssertEqual(one.count(\.done), 1)
    }

    func testMarkWithoutAValueRecordsTheMonotonicNow() {
        let table = StepTable(count: 1, row: Row())
        let before = MonotonicClock.now()
        table.mark(0, \.started)
        let after = MonotonicClock.now()
        let started = table[0].started ?? .nan
        XCTAssertTrue(started >= before && started <= after, "\(started) outside [\(before), \(after)]")
    }

    func testGaugeKeepsTheMostAtOnce() {
        let gauge = PeakGauge()
        gauge.enter(); gauge.enter(); gauge.leave(); gauge.enter(); gauge.enter()
        XCTAssertEqual(gauge.current, 3)
        XCTAssertEqual(gauge.peak, 3)
        gauge.leave(); gauge.leave(); gauge.leave()
        XCTAssertEqual(gauge.current, 0)
        XCTAssertEqual(gauge.peak, 3, "the peak stays after everything left")
    }
}
