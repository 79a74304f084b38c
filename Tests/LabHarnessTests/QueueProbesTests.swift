import Dispatch
import LabHarness
import XCTest

/// A probe's excess is its wait less the machine's part: the larger of its control block's wait
/// and what a same-moment control thread lost over the probe's wait.
final class QueueProbesTests: XCTestCase {
    func testAProbesExcessLeavesOutWhatEitherControlLost() throws {
        let queue = DispatchQueue(label: "lab.test.probed"), held = DispatchSemaphore(value: 0)
        queue.async { _ = held.wait(timeout: .now() + 5) }   // the probed queue is busy: the probe waits
        let probes = QueueProbes(queue)
        probes.submit()
        MonotonicClock.sleep(for: 0.08)
        held.signal()
        XCTAssertTrue(eventually { probes.waiting == 0 })
        let plain = probes.waits(at: MonotonicClock.now())
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(plain.excess.first), 0.05, "the queue held the probe about 80 ms")
        let machine = probes.waits(at: MonotonicClock.now()) { from, to in to - from }   // a control held up all along
        XCTAssertEqual(machine.excess, [0], "a wait the control thread lost too is the machine's")
        XCTAssertEqual(machine.probe, plain.probe)
    }
}
