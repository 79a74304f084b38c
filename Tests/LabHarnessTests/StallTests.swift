import Foundation
import LabHarness
import Synchronization
import XCTest

final class StallTests: XCTestCase {
    func testWatchdogReportsAStallOnceWithinItsWindow() {
        let counter = ProgressCounter()
        let reports = Mutex<[StallReport]>([])
        let watchdog = Watchdog(counter: counter, window: 0.3) { report in reports.withLock { $0.append(report) } }
        watchdog.start()
        for _ in 0..<10 { counter.advance(); MonotonicClock.sleep(for: 0.01) }
        let stoppedAt = MonotonicClock.now()
        let deadline = stoppedAt + 5
        while reports.withLock({ $0.isEmpty }) && MonotonicClock.now() < deadline { MonotonicClock.sleep(for: 0.01) }
        MonotonicClock.sleep(for: 0.4)  // a second window: no second report for the same stall
        watchdog.stop()
        let seen = reports.withLock { $0 }
        XCTAssertEqual(seen.count, 1)
        guard let report = seen.first else { return }
        XCTAssertEqual(report.progress, 10)
        XCTAssertGreaterThanOrEqual(report.detectedAt - report.lastProgressAt, 0.3)
        // Detection comes within the window plus polling; a loaded machine may add a little.
        XCTAssertLessThan(report.detectedAt - stoppedAt, 0.3 + 0.5)
        XCTAssertFalse(report.threads.isEmpty, "the report carries the threads at detection")
        XCTAssertEqual(watchdog.stalls.count, 1)
    }

    func testNoStallWhileProgressContinues() {
        let counter = ProgressCounter()
        let watchdog = Watchdog(counter: counter, window: 0.5)
        watchdog.start()
        for _ in 0..<60 { counter.advance(); MonotonicClock.sleep(for: 0.005) }
        watchdog.stop()
        XCTAssertEqual(watchdog.stalls.count, 0)
    }

    func testWaitReachesStallsOrRunsOutOfBudget() {
        let reached = ProgressCounter()
        let worker = Thread { for _ in 0..<5 { MonotonicClock.sleep(for: 0.01); reached.advance() } }
        worker.start()
        XCTAssertTrue(reached.wait(forAtLeast: 5, stallWindow: 2).reached)

        let stuck = ProgressCounter()
        stuck.advance()
        let start = MonotonicClock.now()
        guard case .stalled(let value, _, _) = stuck.wait(forAtLeast: 5, stallWindow: 0.1) else {
            return XCTFail("expected a stall")
        }
        XCTAssertEqual(value, 1)
        XCTAssertGreaterThanOrEqual(MonotonicClock.now() - start, 0.1)

        let moving = ProgressCounter()
        let mover = Thread { for _ in 0..<100 { MonotonicClock.sleep(for: 0.005); moving.advance() } }
        mover.start()
        guard case .outOfBudget = moving.wait(forAtLeast: 1_000, stallWindow: 5, budget: 0.1) else {
            return XCTFail("expected the budget to run out")
        }
    }
}
