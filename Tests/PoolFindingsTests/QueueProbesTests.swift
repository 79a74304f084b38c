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

    /// The control must not draw from the pool a flood exhausts. On Darwin one limit serves
    /// every QoS's global queue (xnu `pthread_workqueue.c`: `wq_max_constrained_threads` is
    /// checked against the process's one `wq_constrained_threads_scheduled`), so a flood of
    /// `.global()` held a control on `.global(qos: .utility)` as long as the probe: excess 0, a
    /// starving flood graded `responsive`. Linux keeps a pool per root queue; flooding both
    /// queues does here what Darwin's one limit does with one flood.
    func testAFloodOfEveryGlobalQueueDoesNotHoldTheControl() throws {
        let release = DispatchSemaphore(value: 0), queues: [DispatchQueue] = [.global(), .global(qos: .utility)]
        let perQueue = DispatchPoolSize.current.floodSize(base: 2 * CPUBudget.current.poolWidth + 4, beyond: 8)
        for queue in queues {
            for _ in 0..<perQueue { queue.async { _ = release.wait(timeout: .now() + 10) } }
        }
        MonotonicClock.sleep(for: 0.05)  // the flood takes every thread of both pools
        let probes = QueueProbes(.global())
        for _ in 0..<3 {
            probes.submit()
            MonotonicClock.sleep(for: 0.1)
        }
        MonotonicClock.sleep(for: 0.1)  // the first probe held 400 ms, the second 300 ms
        for _ in 0..<(perQueue * queues.count) { release.signal() }
        let deadline = MonotonicClock.now() + 5
        while probes.waiting > 0 && MonotonicClock.now() < deadline { MonotonicClock.sleep(for: 0.005) }
        let waits = probes.waits(at: MonotonicClock.now())
        XCTAssertEqual(waits.unstarted, 0, "every probe started within 5 s of the flood's release")
        XCTAssertGreaterThan(
            waits.excess.max() ?? 0, 0.2,
            "probes held 300 to 400 ms by the flood must show it beyond their control (probe \(waits.probe), "
                + "control \(waits.control))")
    }
}
