import Dispatch
import LabHarness
@testable import PoolExperiment
import XCTest

/// A probe's excess is its wait less the machine's part: the larger of its control block's wait
/// and what a same-moment control thread lost over the probe's wait. `QueueProbes` is exp-pool's own
/// (`PoolExperiment/QueueProbes.swift`).
final class QueueProbesTests: XCTestCase {
    func testAProbesExcessLeavesOutWhatEitherControlLost() throws {
        let queue = DispatchQueue(label: "lab.test.probed"), held = DispatchSemaphore(value: 0)
        queue.async { _ = held.wait(timeout: .now() + 5) }  // the probed queue is busy: the probe waits
        let probes = QueueProbes(queue)
        probes.submit()
        MonotonicClock.sleep(for: 0.08)
        held.signal()
        let deadline = MonotonicClock.now() + 5
        while probes.waiting > 0 && MonotonicClock.now() < deadline { MonotonicClock.sleep(for: 0.005) }
        XCTAssertEqual(probes.waiting, 0, "the probe started within 5 s of the queue's release")
        let plain = probes.waits(at: MonotonicClock.now())
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(plain.excess.first), 0.05, "the queue held the probe about 80 ms")
        let machine = probes.waits(at: MonotonicClock.now()) { from, to in to - from }  // a control held up all along
        XCTAssertEqual(machine.excess, [0], "a wait the control thread lost too is the machine's")
        XCTAssertEqual(machine.probe, plain.probe)
    }
}
