import Foundation
import LabHarness
import LabHarnessXCTest
import XCTest

/// The assertions library authors use, checked both ways: they pass on good code and fail
/// (with a useful message) on bad code. Failures go to a recording reporter here.
final class XCTestHelperTests: XCTestCase {
    private final class Node {
        var next: Node?
        var onEvent: (() -> Void)?
    }

    func testAssertReleasedPassesForAReleasedObjectAndFailsForACycle() {
        let recorder = RecordingReporter()
        let took = assertReleased(within: 1, reporter: recorder.reporter) { Node() }
        XCTAssertNotNil(took)
        XCTAssertEqual(recorder.messages, [])

        let failed = assertReleased(within: 0.2, "the closure keeps it", reporter: recorder.reporter) { () -> Node in
            let node = Node()
            node.onEvent = { _ = node.next }   // captures node strongly: a cycle
            return node
        }
        XCTAssertNil(failed)
        XCTAssertEqual(recorder.messages.count, 1)
        XCTAssertTrue(recorder.messages[0].contains("Node was not released within 200 ms"), recorder.messages[0])
        XCTAssertTrue(recorder.messages[0].hasSuffix(": the closure keeps it"))
    }

    func testAssertReleasedInoutVariant() {
        let recorder = RecordingReporter()
        var node: Node? = Node()
        assertReleased(&node, within: 1, reporter: recorder.reporter)
        XCTAssertNil(node)
        XCTAssertEqual(recorder.messages, [])

        var looped: Node? = Node()
        looped?.next = looped
        assertReleased(&looped, within: 0.1, reporter: recorder.reporter)
        XCTAssertEqual(recorder.messages.count, 1)
    }

    func testAssertNotReleasedDocumentsALeak() {
        let recorder = RecordingReporter()
        XCTAssertTrue(assertNotReleased(after: 0.1, reporter: recorder.reporter) { () -> Node in
            let node = Node()
            node.next = node
            return node
        })
        XCTAssertFalse(assertNotReleased(after: 0.1, reporter: recorder.reporter) { Node() })
        XCTAssertEqual(recorder.messages.count, 1)
    }

    func testLeakCheckNamesWhatIsStillAlive() {
        let recorder = RecordingReporter()
        let check = LeakCheck()
        let kept = check.track(Node(), "kept")
        kept.next = kept
        _ = check.track(Node(), "dropped")
        check.assertAllReleased(within: 0.2, reporter: recorder.reporter)
        XCTAssertEqual(recorder.messages, ["still alive after 200 ms: kept"])
        kept.next = nil
    }

    /// A block that overruns fails the assertion promptly instead of hanging the test.
    func testAssertCompletesFailsPromptlyOnAnOverrun() {
        let recorder = RecordingReporter()
        XCTAssertNotNil(assertCompletes(within: 2, reporter: recorder.reporter) { MonotonicClock.sleep(for: 0.01) })
        let start = MonotonicClock.now()
        XCTAssertNil(assertCompletes(within: 0.1, reporter: recorder.reporter) { MonotonicClock.sleep(for: 3) })
        XCTAssertLessThan(MonotonicClock.now() - start, 1.5)
        XCTAssertEqual(recorder.messages.count, 1)
        XCTAssertTrue(recorder.messages[0].hasPrefix("did not complete within 100 ms"), recorder.messages[0])
    }

    func testAsyncAssertCompletes() async {
        let recorder = RecordingReporter()
        let quick = await assertCompletes(within: 2, reporter: recorder.reporter) { try? await Task.sleep(nanoseconds: 1_000_000) }
        XCTAssertNotNil(quick)
        let start = MonotonicClock.now()
        let slow = await assertCompletes(within: 0.1, reporter: recorder.reporter) { try? await Task.sleep(nanoseconds: 3_000_000_000) }
        XCTAssertNil(slow)
        XCTAssertLessThan(MonotonicClock.now() - start, 1.5)
        XCTAssertEqual(recorder.messages.count, 1)
    }

    func testAssertThreadPeakCountsAddedThreads() {
        let recorder = RecordingReporter()
        let timeline = assertThreadPeak(staysUnder: 4, reporter: recorder.reporter) {
            let parked = ParkedThreads(6, name: "peak.parked")
            MonotonicClock.sleep(for: 0.05)
            parked.release()
        }
        XCTAssertGreaterThanOrEqual(timeline.peak - timeline.first, 6)
        XCTAssertEqual(recorder.messages.count, 1)
        XCTAssertTrue(recorder.messages[0].hasPrefix("the block added"), recorder.messages[0])

        assertThreadPeak(staysUnder: 100, reporter: recorder.reporter) {
            let parked = ParkedThreads(2, name: "peak.parked")
            MonotonicClock.sleep(for: 0.02)
            parked.release()
        }
        XCTAssertEqual(recorder.messages.count, 1, "the second block stayed under its limit")
    }

    func testAssertCalledExactlyOnce() {
        let recorder = RecordingReporter()
        let call = assertCalledExactlyOnce(within: 1, reporter: recorder.reporter) { (done: @escaping @Sendable (Int) -> Void) in
            DispatchQueue.global().async { done(7) }
        }
        XCTAssertEqual(call?.value, 7)
        XCTAssertEqual(recorder.messages, [])

        assertCalledExactlyOnce(within: 0.1, reporter: recorder.reporter) { (_: @escaping @Sendable () -> Void) in }
        XCTAssertEqual(recorder.messages.last, "the callback was never called within 100 ms")

        assertCalledExactlyOnce(within: 1, grace: 0.2, reporter: recorder.reporter) { (done: @escaping @Sendable () -> Void) in
            done()
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) { done() }
        }
        XCTAssertEqual(recorder.messages.last, "the callback was called 2 times; it must be called exactly once")
        XCTAssertEqual(recorder.messages.count, 2)
    }

    func testCallProbeRecordsTheThread() {
        let probe = CallProbe<String>()
        NamedThread.start("probe.caller") { probe.record("hello") }
        XCTAssertTrue(probe.waitForCall(within: 2))
        XCTAssertEqual(probe.first?.thread, "probe.caller")
        XCTAssertEqual(probe.first?.value, "hello")
        XCTAssertEqual(probe.first?.isMainThread, false)
    }
}
