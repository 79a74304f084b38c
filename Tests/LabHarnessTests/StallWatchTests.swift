@testable import LabHarness
import XCTest

/// The same-moment control that timing verdicts subtract: what it measures, and what part of a
/// measured interval it attributes to the machine.
final class StallWatchTests: XCTestCase {
    /// A stall that covers a timer's whole lateness is the machine's, and only the overlap
    /// counts: a stall that ended before the timer was due takes nothing off.
    func testDelayCountsOnlyTheOverlapOfLateWakeUps() {
        let watch = StallWatch(recorded: [(due: 1.0, woke: 1.4), (due: 2.0, woke: 2.1), (due: 5.0, woke: 5.02)])
        XCTAssertEqual(
            watch.delay(from: 1.1, to: 1.5), 0.3, accuracy: 1e-9, "from the due time to the control's wake-up")
        XCTAssertEqual(watch.delay(from: 0.5, to: 3.0), 0.5, accuracy: 1e-9, "two separate stalls add up")
        XCTAssertEqual(watch.delay(from: 1.5, to: 1.9), 0, "no stall overlaps")
        XCTAssertEqual(watch.delay(from: 3, to: 2), 0, "an empty interval")
        XCTAssertEqual(watch.worstDelay, 0.4, accuracy: 1e-9)
        XCTAssertEqual(watch.metrics[Metrics.controlStallMax] ?? 0, 400, accuracy: 1e-6)
    }

    /// A real stall of the process is seen by the control thread: here the calling thread
    /// cannot stop the machine, so the test holds the watch's own thread off the CPU instead
    /// by stopping the whole process for 300 ms with SIGSTOP sent from a helper process.
    func testAProcessStallShowsUpInTheControl() throws {
        let watch = StallWatch()
        MonotonicClock.sleep(for: 0.05)
        let over = DispatchSemaphore(value: 0)
        let before = MonotonicClock.now()
        try stopThisProcess(after: 0, for: 0.3) { over.signal() }
        XCTAssertEqual(over.wait(timeout: .now() + 10), .success)
        MonotonicClock.sleep(for: 0.05)
        let after = MonotonicClock.now()
        watch.stop()
        XCTAssertGreaterThanOrEqual(
            watch.delay(from: before, to: after), 0.2, "the 300 ms stop was seen by the control")
        XCTAssertGreaterThanOrEqual(watch.worstDelay, 0.2)
    }

    func testStopIsIdempotentAndEndsTheThread() {
        let watch = StallWatch()
        MonotonicClock.sleep(for: 0.02)
        let first = watch.stop()
        XCTAssertEqual(watch.stop(), first)
    }

    /// A control for a real-time thread asks for real-time priority one level above it, so it
    /// is never queued behind that thread, and says what it got; a plain control does not ask.
    func testARealtimeWatchAsksOneLevelAboveTheThreadsItCorrects() throws {
        let plain = StallWatch()
        XCTAssertNil(plain.priority)
        plain.stop()
        let watch = StallWatch(realtime: true)
        let answer = try XCTUnwrap(watch.priority, "the answer is there once the watch is returned")
        watch.stop()
        if case .granted(let priority) = answer {
            XCTAssertEqual(priority, RealtimePriority.requestedPriority + 1)
        }
    }
}
