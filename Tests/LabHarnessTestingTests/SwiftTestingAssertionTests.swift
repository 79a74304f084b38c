import Foundation
import LabHarness
import LabHarnessTesting
import Synchronization
import Testing

/// The Swift Testing front end: each assertion passes on good code and, on bad code, records
/// an issue at the caller's source location (checked with `withKnownIssue` and a matcher on
/// the issue's line).
@Suite struct SwiftTestingAssertionTests {
    final class Cycle {
        var me: Cycle?
        static func make() -> Cycle {
            let cycle = Cycle()
            cycle.me = cycle
            return cycle
        }
    }

    final class Plain: Sendable {}

    /// Expects exactly one issue from `body`, recorded at `line` of this file, whose text
    /// contains `text`.
    static func expectOneIssue(atLine line: Int, containing text: String, _ body: () -> Void) {
        let matched = Mutex(0)
        withKnownIssue {
            body()
        } matching: { issue in
            let here = issue.sourceLocation?.line == line && issue.sourceLocation?.fileID == "LabHarnessTestingTests/SwiftTestingAssertionTests.swift"
            let says = issue.comments.contains { $0.rawValue.contains(text) }
            if here && says { matched.withLock { $0 += 1 } }
            return here && says
        }
        #expect(matched.withLock { $0 } == 1)
    }

    @Test func aLeakIsRecordedAtTheCallersLine() {
        // A second look of 0.5 s, not 5: the cycle fails whatever it is.
        Self.expectOneIssue(atLine: #line + 2, containing: "Cycle was not released within 100 ms") {
            HarnessAssertions.$secondLookFloor.withValue(0.5) {
                _ = assertReleased(within: .milliseconds(100)) { Cycle.make() }
            }
        }
    }

    @Test func aReleasedObjectPasses() {
        #expect(assertReleased(within: 1) { Plain() } != nil)
        var plain: Plain? = Plain()
        #expect(assertReleased(&plain) != nil)
    }

    @Test func aDocumentedLeakPassesAndAReleaseFails() {
        #expect(assertNotReleased(after: .milliseconds(50)) { Cycle.make() })
        Self.expectOneIssue(atLine: #line + 1, containing: "expected to stay alive") {
            assertNotReleased(after: .milliseconds(50)) { Plain() }
        }
    }

    @Test(.enabled(if: StackCapture.unavailableReason == nil, Comment(rawValue: StackCapture.unavailableReason ?? "")))
    func anOverrunIsRecordedWithTheStackItWasStuckIn() {
        // The block runs on this thread; it returns late, within the watchdog's grace, so the
        // test goes on and the issue carries the stack the watchdog took at the budget.
        Self.expectOneIssue(atLine: #line + 1, containing: "did not complete within 50 ms") {
            assertCompletes(within: .milliseconds(50)) { MonotonicClock.sleep(for: 0.4) }
        }
        let recorder = RecordingReporter()
        let blockLine = #line + 1
        assertCompletes(within: .milliseconds(50), reporter: recorder.reporter) { MonotonicClock.sleep(for: 0.4) }
        #expect(recorder.messages.count == 1)
        #expect(recorder.messages.first?.contains("when the budget ran out its thread was:") == true, "\(recorder.messages)")
        // Where it was stuck: the block's own line (a `-O` build inlines `MonotonicClock.sleep`,
        // so its name is no evidence; the line of the code that blocked stays).
        #expect(
            recorder.messages.first?.contains("SwiftTestingAssertionTests.swift:\(blockLine))") == true,
            "\(recorder.messages)")
    }

    @Test func anAsyncOverrunIsRecorded() async {
        let matched = Mutex(0)
        await withKnownIssue {
            await assertCompletes(within: .milliseconds(50)) { try? await Task.sleep(nanoseconds: 2_000_000_000) }
        } matching: { issue in
            let ok = issue.comments.contains { $0.rawValue.contains("did not complete within 50 ms") }
            if ok { matched.withLock { $0 += 1 } }
            return ok
        }
        #expect(matched.withLock { $0 } == 1)
    }

    @Test func aDoubleCallIsRecordedAndASingleCallPasses() {
        let single = assertCalledExactlyOnce(grace: .milliseconds(20)) {
            (done: @escaping @Sendable (Int) -> Void) in done(1)
        }
        #expect(single?.value == 1)
        Self.expectOneIssue(atLine: #line + 1, containing: "called 2 times") {
            assertCalledExactlyOnce(within: 1, grace: .seconds(1)) { (done: @escaping @Sendable () -> Void) in
                // The grace outlasts any machine stall, so the second call always lands inside it.
                // It comes from a thread of its own: a global-queue block could wait past the
                // grace while the parallel suites' tests hold the pool's few threads (seen once in
                // ten runs under stress --cpu 2).
                done()
                NamedThread.start("test.second-call") {
                    MonotonicClock.sleep(for: 0.01)
                    done()
                }
            }
        }
    }

    @Test func aLeakCheckNamesItsSurvivorsAtTheLineThatTrackedThem() {
        let check = LeakCheck()
        let trackedAt = #line + 1
        let kept = check.track(Cycle.make(), "kept")
        // `kept` and the cycle: two strong references.
        Self.expectOneIssue(atLine: trackedAt, containing: "kept was still alive 100 ms after the check began (checked at SwiftTestingAssertionTests.swift:\(#line + 1)): 2 strong references still hold it") {
            check.assertAllReleased(within: .milliseconds(100))
        }
        kept.me = nil
    }

    @Test func anAsyncReleaseSuspendsInsteadOfBlocking() async {
        let took = await assertReleased(within: .milliseconds(500)) { () async -> Plain in
            await Task.yield()
            return Plain()
        }
        #expect(took != nil)
    }

    /// Exit tests, the toolchain's way to run code that traps in a child process, work here.
    @Test func exitTestsAreAvailableForCodeThatTraps() async {
        await #expect(processExitsWith: .failure) {
            let values: [Int] = []
            _ = values[1]
        }
    }
}
