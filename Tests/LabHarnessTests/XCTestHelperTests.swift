import Foundation
@testable import LabHarness
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

        // The product's second look is 5 s; a cycle fails whatever it is, so this one looks 800 ms.
        XCTAssertEqual(HarnessAssertions.secondLook(after: 0.2), 5)
        let failed = withBriefSecondLook {
            assertReleased(within: 0.2, "the closure keeps it", reporter: recorder.reporter) { () -> Node in
                let node = Node()
                node.onEvent = { _ = node.next }   // captures node strongly: a cycle
                return node
            }
        }
        XCTAssertNil(failed)
        XCTAssertEqual(recorder.messages.count, 1)
        XCTAssertTrue(recorder.messages[0].contains("Node was not released within 200 ms"), recorder.messages[0])
        XCTAssertTrue(recorder.messages[0].contains("nor within a second look of \(Format.seconds(0.8))"),
                      recorder.messages[0])
        XCTAssertTrue(recorder.messages[0].hasSuffix(": the closure keeps it"))
        XCTAssertEqual(HarnessAssertions.secondLook(after: 0.2), 5, "the brief second look ends with its scope")
    }

    /// A second look that would outlast the test's hang watch ends a second before it: the leak
    /// fails as a leak, with what holds it, and the watch does not fire. A 2 s watch ends the
    /// 5 s look 1 s in: the same second before the watch, and the same half second for a stall
    /// after the cut, as a longer watch would leave, without waiting out the longer watch.
    func testASecondLookEndsBeforeTheTestsHangWatch() {
        let recorder = RecordingReporter()
        let limit: Seconds = 2
        let watch = HangWatch(limit: limit, testName: "a leak under a short hang watch") { _ in }
        defer { watch.testEnded() }
        let start = MonotonicClock.now()
        let failed = assertReleased(within: 0.2, reporter: recorder.reporter) { () -> Node in
            let node = Node()
            node.next = node
            return node
        }
        XCTAssertNil(failed)
        XCTAssertLessThan(MonotonicClock.now() - start, limit - 0.5, "the 5 s second look was cut short")
        XCTAssertFalse(watch.fired)
        XCTAssertEqual(recorder.messages.count, 1)
        XCTAssertTrue(recorder.messages.first?.contains("(cut short by the test's hang watch)") ?? false, "\(recorder.messages)")
        XCTAssertTrue(recorder.messages.first?.contains("strong reference") ?? false, "\(recorder.messages)")
    }

    /// A Swift Testing test's hang watch is its own (`scoped`, bound in `HangWatch.watching`):
    /// in a task, another test's watch running beside it does not cut its second look short,
    /// its own watches do (the soonest of them), and so does XCTest's process-wide observer;
    /// outside any task (a thread of the code under test) every watch does.
    func testOnlyThisTestsHangWatchesCutItsSecondLook() async {
        let other = HangWatch(limit: 30, testName: "another test", scoped: true) { _ in }
        let suite = HangWatch(limit: 20, testName: "this test's suite", scoped: true) { _ in }
        let own = HangWatch(limit: 40, testName: "this test", scoped: true) { _ in }
        defer { [other, suite, own].forEach { $0.testEnded() } }
        XCTAssertNil(HangWatch.deadlineOfThisTest, "in a task with no watch of its own")
        let offTask = await withCheckedContinuation { (done: CheckedContinuation<Seconds?, Never>) in
            Thread.detachNewThread { done.resume(returning: HangWatch.deadlineOfThisTest) }
        }
        XCTAssertEqual(offTask ?? 0, MonotonicClock.now() + 20, accuracy: 1, "off any task: every watch")
        HangWatch.$watching.withValue([suite, own]) {
            XCTAssertEqual(HangWatch.deadlineOfThisTest ?? 0, MonotonicClock.now() + 20, accuracy: 1, "the suite's")
        }
        let process = HangWatch(limit: 10, testName: "XCTest's observer") { _ in }
        defer { process.testEnded() }
        XCTAssertEqual(HangWatch.deadlineOfThisTest ?? 0, MonotonicClock.now() + 10, accuracy: 1, "unscoped")
    }

    func testAssertReleasedInoutVariant() {
        let recorder = RecordingReporter()
        var node: Node? = Node()
        assertReleased(&node, within: 1, reporter: recorder.reporter)
        XCTAssertNil(node)
        XCTAssertEqual(recorder.messages, [])

        var looped: Node? = Node()
        looped?.next = looped
        withBriefSecondLook { assertReleased(&looped, within: 0.1, reporter: recorder.reporter) }
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

    /// `make` runs inside an autorelease pool that the assertion opens and drains before it
    /// waits: on Darwin what Objective-C code autoreleased there would otherwise live as long as
    /// the test method's pool and read as a leak. Linux has no such pool; the shim counts it,
    /// which is what this sees.
    func testTheObjectIsMadeInsideAnAutoreleasePoolOfItsOwn() {
        let recorder = RecordingReporter()
        let outside = HostPlatform.autoreleasePoolDepth
        var inside: [Int] = []
        assertReleased(within: 1, reporter: recorder.reporter) { () -> Node in
            inside.append(HostPlatform.autoreleasePoolDepth)
            return Node()
        }
        XCTAssertTrue(assertNotReleased(after: 0.05, reporter: recorder.reporter) { () -> Node in
            inside.append(HostPlatform.autoreleasePoolDepth)
            let node = Node()
            node.next = node
            return node
        })
        XCTAssertEqual(inside, [outside + 1, outside + 1])
        XCTAssertEqual(HostPlatform.autoreleasePoolDepth, outside, "each pool is popped before the assertion returns")
        XCTAssertEqual(recorder.messages, [])
    }

    func testLeakCheckNamesWhatIsStillAlive() {
        let recorder = LabHarness.RecordingReporter()
        let check = LeakCheck()
        let kept = check.track(Node(), "kept")
        let trackedAt = #line - 1
        kept.next = kept
        _ = check.track(Node(), "dropped")
        check.assertAllReleased(within: 0.2, reporter: recorder.reporter)
        // `kept` and its own `next`: two strong references, the second of which the harness can
        // name (the local variable it cannot); the failure is at the `track` line.
        XCTAssertEqual(recorder.messages, ["kept was still alive 200 ms after the check began (checked at XCTestHelperTests.swift:\(#line - 3)): "
                                           + "2 strong references still hold it: held by its own stored property `next` (it holds itself)"])
        XCTAssertEqual(recorder.failures.first?.site.line, trackedAt)
        kept.next = nil
    }

    /// A label given again names another object: a leak tracked first under it is not hidden by
    /// a tidy object tracked after it, and a second object under a label is named `label #2`.
    func testALabelUsedAgainNamesAnotherObject() {
        let recorder = LabHarness.RecordingReporter()
        let check = LeakCheck()
        let kept = check.track(Node(), "node")
        kept.next = kept
        _ = check.track(Node(), "node")
        let second = check.track(Node(), "node")
        second.next = second
        check.assertAllReleased(within: 0.2, reporter: recorder.reporter)
        XCTAssertEqual(
            recorder.messages.map { $0.prefix(while: { $0 != " " }) }, ["node", "node"], "\(recorder.messages)")
        XCTAssertTrue(recorder.messages.last?.hasPrefix("node #3 was still alive") ?? false, "\(recorder.messages)")
        kept.next = nil
        second.next = nil
    }

    /// A block that overruns fails with the stack the watchdog took at the budget; one that
    /// comes back within the grace lets the test go on.
    func testAssertCompletesFailsAnOverrunWithTheStackItWasStuckIn() throws {
        if let reason = StackCapture.unavailableReason { throw XCTSkip(reason) }   // the verdict reads frames
        let recorder = RecordingReporter()
        XCTAssertNotNil(assertCompletes(within: 2, reporter: recorder.reporter) { MonotonicClock.sleep(for: 0.01) })
        let start = MonotonicClock.now()
        let blockLine = #line + 1
        XCTAssertNil(assertCompletes(within: 0.1, reporter: recorder.reporter) { MonotonicClock.sleep(for: 0.4) })
        // The block's 0.4 s, then at most the stack's answers and names (0.8 + 3 s, bounded)
        // before the assertion returns: the test goes on, it is not ended.
        let returnBound = 0.4 + StackCapture.answerBudget + HangStacks.patientNaming + 1
        XCTAssertLessThan(MonotonicClock.now() - start, returnBound)
        XCTAssertEqual(recorder.messages.count, 1)
        XCTAssertTrue(
            recorder.messages[0].hasPrefix("did not complete within 100 ms (it returned after"), recorder.messages[0])
        XCTAssertTrue(recorder.messages[0].contains("(main thread): in "), recorder.messages[0])
        // Where it was stuck: the block's own line, which a `-O` build keeps where it inlines
        // `MonotonicClock.sleep` (so that name is no evidence).
        XCTAssertTrue(recorder.messages[0].contains("XCTestHelperTests.swift:\(blockLine))"), recorder.messages[0])
    }

    func testAsyncAssertCompletes() async {
        let recorder = RecordingReporter()
        let quick = await assertCompletes(within: 2, reporter: recorder.reporter) {
            try? await Task.sleep(nanoseconds: 1_000_000)
        }
        XCTAssertNotNil(quick)
        let start = MonotonicClock.now()
        let slow = await assertCompletes(within: 0.1, reporter: recorder.reporter) {
            try? await Task.sleep(nanoseconds: 3_000_000_000)
        }
        XCTAssertNil(slow)
        XCTAssertLessThan(MonotonicClock.now() - start, 1.5)
        XCTAssertEqual(recorder.messages.count, 1)
    }

    /// An operation that holds every thread of the cooperative pool keeps the wait from waking
    /// until the operation is done: found done then, past its budget, it still overran. (On a
    /// machine stalled before the blockers start, the wait sees it unfinished: a failure too.)
    func testAnAsyncOverrunTheWaitCouldNotSeeInTimeStillFails() async {
        let recorder = RecordingReporter()
        let width = CPUBudget.current.poolWidth
        let took = await assertCompletes(within: 0.2, reporter: recorder.reporter) {
            // Blocking the pool's threads is the point: the rest of them, then this task's. At
            // the wait's priority: blockers at the default one left the wait a thread (measured
            // on Linux, Swift 6.3.1).
            let priority = Task.currentPriority
            for _ in 1..<max(1, width) { Task.detached(priority: priority) { MonotonicClock.sleep(for: 0.9) } }
            MonotonicClock.sleep(for: 0.7)
        }
        XCTAssertNil(took, "it took 0.7 s of a 0.2 s budget")
        XCTAssertEqual(recorder.messages.count, 1)
        XCTAssertTrue(
            recorder.messages.first?.hasPrefix("did not complete within 200 ms") ?? false, "\(recorder.messages)")
    }

    /// A cancelled task's `Task.sleep` throws at once: an async wait that slept with it alone spun
    /// to its deadline, checking its condition without a pause, and the async settle returned at
    /// once. Both still take their whole time, a slice at a time.
    func testAsyncWaitsInACancelledTaskTakeTheirTimeWithoutSpinning() async {
        let checks = Shared(0)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            let start = MonotonicClock.now()
            let held = await MainQueueFriendlyWait.until(within: 0.3) {
                checks.update { n -> Bool in n += 1; return false }
            }
            let settling = MonotonicClock.now()
            await settleBeforeExit(for: 0.2)
            return (held, settling - start, MonotonicClock.now() - settling)
        }
        let (held, waited, settled) = await task.value
        XCTAssertFalse(held)
        XCTAssertGreaterThanOrEqual(waited, 0.3)
        XCTAssertGreaterThanOrEqual(settled, 0.2)
        XCTAssertLessThan(checks.get(), 1_000, "2 ms slices make about 150 checks in 0.3 s; a spin, many thousands")
    }

    /// The harness's own threads started inside a watched block (the completion watchdog of an
    /// `assertCompletes`, the standard-error reader of its async form) are not the block's.
    func testTheHarnessesOwnThreadsAreNotCountedAsAdded() {
        NewThreadWatch.warmUpConcurrencyPool()
        let recorder = RecordingReporter()
        assertThreadPeak(staysUnder: 1, reporter: recorder.reporter) {
            assertCompletes(within: 5, reporter: recorder.reporter) { MonotonicClock.sleep(for: 0.02) }
        }
        let asyncForm = DispatchSemaphore(value: 0)
        Task {
            await assertThreadPeak(staysUnder: 1, reporter: recorder.reporter) {
                await assertCompletes(within: 5, reporter: recorder.reporter) {}
            }
            asyncForm.signal()
        }
        XCTAssertEqual(asyncForm.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(recorder.messages, [])
        assertThreadPeak(staysUnder: 1, reporter: recorder.reporter) {
            assertCompletes(within: 5, reporter: recorder.reporter) {
                // Alive for 300 ms: a sampler held off longer than the thread lives misses it (the
                // count is a lower bound), which 50 ms did once under `stress --cpu 2`.
                let parked = ParkedThreads(1, name: "peak.parked")
                MonotonicClock.sleep(for: 0.3)
                parked.release()
            }
        }
        XCTAssertEqual(recorder.messages.count, 1, "a thread the block starts still counts")
        // Its name is the kernel's when last listed: on a loaded machine, maybe still its creator's.
        XCTAssertTrue(recorder.messages.first?.hasPrefix("the block added 1 thread: 1 × ") ?? false, "\(recorder.messages)")
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
        let call = assertCalledExactlyOnce(within: 1, reporter: recorder.reporter) {
            (done: @escaping @Sendable (Int) -> Void) in
            DispatchQueue.global().async { done(7) }
        }
        XCTAssertEqual(call?.value, 7)
        XCTAssertEqual(recorder.messages, [])

        assertCalledExactlyOnce(within: 0.1, reporter: recorder.reporter) { (_: @escaping @Sendable () -> Void) in }
        XCTAssertEqual(recorder.messages.last, "the callback was never called within 100 ms")

        assertCalledExactlyOnce(within: 1, grace: 1.0, reporter: recorder.reporter) {
            (done: @escaping @Sendable () -> Void) in
            // The grace outlasts any machine stall, so the second call always lands inside it.
            done()
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) { done() }
        }
        XCTAssertEqual(recorder.messages.last?.hasPrefix("the callback was called 2 times; it must be called exactly once: call 1 with no value from "), true,
                       "\(recorder.messages)")
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

    // MARK: Where failures land

    func testAFailureIsRecordedAtTheCallersFileLineAndColumn() {
        let recorder = LabHarness.RecordingReporter()
        let line = #line + 1
        assertNotReleased(after: 0.05, reporter: recorder.reporter) { Node() }
        let site = recorder.failures.first?.site
        XCTAssertEqual(site?.line, line)
        XCTAssertEqual(site?.column, 26, "#column as a default argument is the column of the call's opening parenthesis")
        XCTAssertEqual(site?.fileID, "LabHarnessTests/XCTestHelperTests.swift")
        XCTAssertTrue(site?.filePath.hasSuffix("Tests/LabHarnessTests/XCTestHelperTests.swift") ?? false)
        XCTAssertNotNil(site?.staticFilePath, "XCTFail needs the StaticString path")
    }

    /// A reporter closure that captures a plain local array (not Sendable) works in
    /// single-threaded use.
    func testAnUncheckedReporterMayCaptureLocalState() {
        var seen: [String] = []
        let reporter = FailureReporter.unchecked { message, _ in seen.append(message) }
        assertNotReleased(after: 0.02, reporter: reporter) { Node() }
        XCTAssertEqual(seen.count, 1)
        XCTAssertTrue(seen[0].hasPrefix("Node was released"), seen[0])
    }

    /// A length no clock can wait is clamped, never a trap or a wait without end: NaN and
    /// negative lengths wait 0 s (the assertion fails, saying so), longer ones than
    /// `WaitTimeLimit.longest` wait that. Before, `.seconds(Int.max)` overflowed, an infinite or
    /// NaN budget trapped the watchdog thread (`Int(left * 1e9)`), and a NaN wait never ended.
    func testAWaitTimeNoClockCanWaitIsClampedNotATrap() {
        XCTAssertEqual(Double.nan.labSeconds, 0)
        XCTAssertEqual((-2).labSeconds, 0)
        XCTAssertEqual(Double.infinity.labSeconds, WaitTimeLimit.longest)
        func seconds(_ time: some WaitTime) -> Seconds { time.labSeconds }
        XCTAssertEqual(seconds(.seconds(Int.max)), WaitTimeLimit.longest)
        XCTAssertEqual(seconds(.milliseconds(Double.infinity)), WaitTimeLimit.longest)
        XCTAssertEqual(seconds(.seconds(Double.nan)), 0)
        let recorder = RecordingReporter()
        let took = assertCompletes(within: Double.nan, reporter: recorder.reporter) { MonotonicClock.sleep(for: 0.01) }
        XCTAssertNil(took)
        XCTAssertEqual(recorder.messages.count, 1, "\(recorder.messages)")
        let start = MonotonicClock.now()
        XCTAssertFalse(MainQueueFriendlyWait.until(within: .nan) { false })
        XCTAssertFalse(CallProbe<Int>().waitForCall(within: .nan))
        XCTAssertLessThan(MonotonicClock.now() - start, 1, "a NaN wait ends at once")
    }

    // MARK: Duration and async

    func testEveryWaitTakesADurationOrSeconds() {
        let recorder = LabHarness.RecordingReporter()
        // 100 ms: a cycle fails whatever the wait, and the brief second look after it is then its
        // 0.5 s floor (after 300 ms it was four times the wait, 1.2 s).
        withBriefSecondLook {
            assertReleased(within: .milliseconds(100), reporter: recorder.reporter) { () -> Node in
                let node = Node()
                node.next = node
                return node
            }
        }
        XCTAssertTrue(
            recorder.messages.first?.hasPrefix("Node was not released within 100 ms") ?? false, "\(recorder.messages)")
        let start = MonotonicClock.now()
        assertCalledExactlyOnce(within: .seconds(1), grace: .milliseconds(20), reporter: recorder.reporter) {
            (done: @escaping @Sendable () -> Void) in
            done()
        }
        XCTAssertLessThan(MonotonicClock.now() - start, 1, "the grace is 20 ms, not 20 s")
        XCTAssertEqual(recorder.messages.count, 1)
        XCTAssertNil(
            assertCompletes(within: .milliseconds(50), reporter: recorder.reporter) { MonotonicClock.sleep(for: 0.3) })
        XCTAssertEqual(recorder.messages.last?.hasPrefix("did not complete within 50 ms"), true)
    }

    private final class Resource: Sendable {}

    func testAsyncReleaseAndThreadPeakOverloads() async {
        let recorder = LabHarness.RecordingReporter()
        let took = await assertReleased(within: 1.0, reporter: recorder.reporter) { () async -> Resource in
            await Task.yield()
            return Resource()
        }
        XCTAssertNotNil(took)
        XCTAssertEqual(recorder.messages, [])
        // The threads name themselves once they run: the failure may list some under the name
        // they inherited ("r-initiated-qos"), and then where they wait names them all. A watcher
        // that a loaded machine kept off the CPU for the threads' whole 20 ms saw them only as
        // they were born (seen once in a loaded whole-suite run): the block's failure is checked
        // every time, its naming of the threads once in three tries.
        var messages: [String] = []
        for _ in 0..<3 {
            let peak = LabHarness.RecordingReporter()
            await assertThreadPeak(staysUnder: 3, reporter: peak.reporter) {
                let parked = ParkedThreads(3, name: "async.parked")
                try? await Task.sleep(nanoseconds: 20_000_000)
                parked.release()
            }
            XCTAssertEqual(peak.messages.count, 1)
            let message = peak.messages.first ?? ""
            // At least the 3 parked, counted process-wide.
            XCTAssertTrue(message.hasPrefix("the block added "), message)
            messages.append(message)
            if message.contains("3 × async.parked") || message.contains("ParkedThreads.init") { break }
        }
        XCTAssertTrue(
            messages.contains { $0.contains("3 × async.parked") || $0.contains("ParkedThreads.init") },
            messages.joined(separator: "\n"))
    }

    // MARK: Main queue

    /// Runs `attempt` up to three times: a wait that blocks the main thread fails every time,
    /// while one stall of a loaded machine cannot fail all three.
    private func passesOnceInThree(_ attempt: () -> Bool) -> Bool {
        for _ in 0..<3 where attempt() { return true }
        return false
    }

    func testAnObjectReleasedByAMainQueueBlockIsSeenWithin50Milliseconds() {
        XCTAssertTrue(Thread.isMainThread, "XCTest runs tests on the main thread")
        XCTAssertTrue(passesOnceInThree {
            let recorder = LabHarness.RecordingReporter()
            assertReleased(within: .milliseconds(50), reporter: recorder.reporter) { () -> Resource in
                let resource = Resource()
                DispatchQueue.main.async { withExtendedLifetime(resource) {} }
                return resource
            }
            return recorder.messages.isEmpty
        })
    }

    func testAHandlerDeliveredOnTheMainQueueIsSeenWithin50Milliseconds() {
        XCTAssertTrue(passesOnceInThree {
            let recorder = LabHarness.RecordingReporter()
            let call = assertCalledExactlyOnce(
                within: .milliseconds(50), grace: .milliseconds(10), reporter: recorder.reporter
            ) { (done: @escaping @Sendable () -> Void) in
                DispatchQueue.main.async { done() }
            }
            return recorder.messages.isEmpty && call?.isMainThread == true
        })
    }

    /// A second call delivered on the main queue during the grace period is counted too.
    func testASecondMainQueueCallDuringTheGraceIsCounted() {
        let recorder = LabHarness.RecordingReporter()
        assertCalledExactlyOnce(within: 1.0, grace: .seconds(1), reporter: recorder.reporter) {
            (done: @escaping @Sendable () -> Void) in
            DispatchQueue.main.async { done() }
            DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(20)) { done() }
        }
        XCTAssertEqual(recorder.messages.count, 1)
        XCTAssertTrue(recorder.messages.first?.hasPrefix("the callback was called 2 times; it must be called exactly once: call 1 with no value from ") ?? false,
                      "\(recorder.messages)")
    }

    /// The block runs where the test calls it: on the main thread, as in the app (a block that
    /// waits there for the main queue deadlocks, as it would in the app; Tests/HarnessUser
    /// shows that failure in a child process).
    func testAssertCompletesRunsTheBlockOnTheCallingThread() {
        let recorder = LabHarness.RecordingReporter()
        var onMain = false
        let took = assertCompletes(within: 1.0, reporter: recorder.reporter) { onMain = Thread.isMainThread }
        XCTAssertNotNil(took, "\(recorder.messages)")
        XCTAssertTrue(onMain)
    }

    func testLeakCheckWaitsWithTheMainQueueDraining() {
        let recorder = LabHarness.RecordingReporter()
        let check = LeakCheck()
        let resource = check.track(Resource(), "held by the main queue")
        DispatchQueue.main.async { withExtendedLifetime(resource) {} }
        _ = consume resource
        check.assertAllReleased(within: 1.0, reporter: recorder.reporter)
        XCTAssertEqual(recorder.messages, [])
    }

    // MARK: Threads by identity

    func testThreadsAddedAreCountedByIdentityAndNamed() {
        for _ in 0..<50 { NamedThread.start("lab.brief") {} }
        let recorder = LabHarness.RecordingReporter()
        var parked: ParkedThreads?
        assertThreadPeak(staysUnder: 20, reporter: recorder.reporter) {
            parked = ParkedThreads(20, name: "lab.parked")
        }
        parked?.release()
        XCTAssertEqual(recorder.messages.count, 1)
        // Threads are counted process-wide: a libdispatch worker that the machine's load made
        // the process start meanwhile is counted too, and named apart ("21 threads: 20 ×
        // lab.parked, 1 × -qos.overcommit", seen under stress --cpu 2). The 20 must all be there.
        let message = recorder.messages.first ?? ""
        XCTAssertTrue(message.hasPrefix("the block added ") && message.contains(" threads: 20 × lab.parked"), "\(recorder.messages)")
    }

    func testThreadsThatExistedBeforeTheBlockAreNotCounted() {
        let before = ParkedThreads(5, name: "lab.before")
        let recorder = LabHarness.RecordingReporter()
        let watch = NewThreadWatch()
        watch.start()
        before.release()   // threads ending during the block are not new
        let late = ParkedThreads(2, name: "lab.late")
        let appeared = watch.stop()
        late.release()
        XCTAssertEqual(appeared.filter { $0.name == "lab.before" }.count, 0)
        XCTAssertEqual(appeared.filter { $0.name == "lab.late" }.count, 2)
        XCTAssertEqual(NewThreadWatch.summary(appeared.filter { $0.name == "lab.late" }), "2 threads: 2 × lab.late")
        XCTAssertEqual(recorder.messages, [])
    }

    func testTotalCountingComparesTheProcessPeak() {
        let recorder = LabHarness.RecordingReporter()
        let total = ThreadCensus.count() ?? 0
        assertThreadPeak(staysUnder: total + 50, counting: .total, reporter: recorder.reporter) {}
        XCTAssertEqual(recorder.messages, [])
        assertThreadPeak(staysUnder: 1, counting: .total, reporter: recorder.reporter) {}
        XCTAssertTrue(recorder.messages.first?.hasPrefix("the process peaked at") ?? false, "\(recorder.messages)")
    }

    // MARK: Hang stacks

    /// A hang's lines: the blocking call, then the author's frames, without the harness's own
    /// (the assertion that ran the block), with nested closures and generic functions named by
    /// the function that holds them, and generic types kept.
    func testHangStacksReadAsTheExperimentsPrintThem() {
        let frames = [
            "_dispatch_semaphore_wait_slow (in libdispatch.so)",
            "Kit.Fetcher.fetchSynchronously() -> Swift.String (Fetcher.swift:21)",
            "closure #1 () -> () in closure #2 () -> () in Tests.FetchTests.testFetch() -> () (FetchTests.swift:9)",
            "static LabHarness.HarnessAssertions.completes(within: Swift.Double, _: LabHarness.AssertionCall, _: () throws -> ()) throws -> Swift.Optional<Swift.Double> (HarnessAssertions.swift:90)",
            "LabHarnessXCTest.assertCompletes<A where A: LabHarness.WaitTime>(within: A) -> Swift.Optional<Swift.Double> (TimingAssertions.swift:20)",
            "Kit.Box<Swift.Int>.waitForReply() -> () (Box.swift:4)",
            "Tests.FetchTests.testFetch() -> () (FetchTests.swift:8)",
        ]
        let snapshot = StackSnapshot(threads: [ThreadStack(thread: "main thread", tid: 1, state: "S", frames: frames)])
        XCTAssertEqual(HangStacks.lines(snapshot, depth: 4), [
            "1 thread (main thread): in _dispatch_semaphore_wait_slow ← Fetcher.fetchSynchronously (Fetcher.swift:21) "
                + "← closure in FetchTests.testFetch (FetchTests.swift:9) ← Box<Swift.Int>.waitForReply (Box.swift:4) "
                + "← FetchTests.testFetch (FetchTests.swift:8)",
        ])
        // Private and fileprivate declarations by name, not cut at the discriminator's parenthesis.
        XCTAssertEqual(StackGroup.short("Contentful.Client.(handleJSON in _0C9D7A)(Foundation.Data) -> ()"), "Client.handleJSON")
        XCTAssertEqual(StackGroup.short("closure #1 () -> () in Kit.Client.(parse in _E1F2)<A>(A) -> ()"), "closure in Client.parse")
        XCTAssertEqual(StackGroup.short("Kit.(Helper in _AB12).run() -> ()"), "Helper.run")
        XCTAssertEqual(StackGroup.short("XCTest.XCTestCase.assertInChildProcess<A where A: LabHarness.WaitTime>(expecting: A) -> ()"),
                       "XCTestCase.assertInChildProcess")
        XCTAssertEqual(StackGroup.short("(extension in LabHarnessXCTest):XCTest.XCTestCase.assertInChildProcess(budget: Swift.Double) -> ()"),
                       "XCTestCase.assertInChildProcess")
    }
}
