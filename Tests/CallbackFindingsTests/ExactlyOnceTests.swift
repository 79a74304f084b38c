import CallbackExperiment
import Dispatch
import Foundation
import LabHarness
import LabHarnessXCTest
import Synchronization
import XCTest

/// The harness's exactly-once helper (`assertCalledExactlyOnce`) applied to the chat
/// library, as a library author would: it passes on the library's callback whatever the app
/// does, and it catches a library that relays the app's handler without a guard. The
/// library's own once-guard is tested directly too. All in-process: nothing here blocks for
/// good or traps.
final class ExactlyOnceTests: XCTestCase {
    private let latency: Seconds = 0.05

    private func library(_ source: (AppProfiles) -> ChatLibrary.ProfileSource, patience: Seconds = 1) -> ChatLibrary {
        ChatLibrary(source: source(AppProfiles(latency: latency)), patience: patience)
    }

    func testTheLibrarysCallbackIsCalledExactlyOnce() {
        let lib = library { .completionHandler($0.onAppQueue) }
        let call = assertCalledExactlyOnce(within: 2, grace: 0.1) { (done: @escaping @Sendable (Rendering) -> Void) in
            lib.open(.sample, callback: done)
        }
        XCTAssertEqual(call?.value.names, .fromApp)
        XCTAssertEqual(call?.value.lines.first, "Ada: did the timeout fire?")
        XCTAssertEqual(call?.isMainThread, false, "the callback runs on the library's queue")
    }

    func testTheOnceGuardKeepsTheCallbackSingleWhenTheAppCallsTwice() {
        let lib = library { .completionHandler($0.twice(gap: 0.02)) }
        assertCalledExactlyOnce(within: 2, grace: 0.2) { (done: @escaping @Sendable (Rendering) -> Void) in
            lib.open(.sample, callback: done)
        }
        XCTAssertEqual(lib.handlerCalls, 2)
        XCTAssertEqual(lib.diagnostics.map(\.kind), [.calledAgain])
    }

    func testTheWatchdogKeepsTheCallbackSingleWhenTheAppForgets() {
        let lib = library({ .completionHandler($0.forgetting) }, patience: 0.2)
        let call = assertCalledExactlyOnce(within: 2, grace: 0.1) { (done: @escaping @Sendable (Rendering) -> Void) in
            lib.open(.sample, callback: done)
        }
        XCTAssertEqual(call?.value.names, .idsOnly)
        XCTAssertEqual(call?.value.lines.first, "u1: did the timeout fire?")
        XCTAssertEqual(lib.diagnostics.map(\.kind), [.neverCalled])
    }

    /// Without a guard, a relay passes the app's second call straight on: the helper says so.
    func testTheHelperCatchesARelayWithoutAGuard() {
        let recorder = RecordingReporter()
        let app = AppProfiles(latency: latency)
        assertCalledExactlyOnce(within: 2, grace: 0.2, reporter: recorder.reporter) {
            (done: @escaping @Sendable ([Profile]) -> Void) in
            app.twice(gap: 0.02)(["u1"], done)
        }
        XCTAssertEqual(recorder.messages.count, 1)
        XCTAssertTrue(
            recorder.messages.first?.hasPrefix(
                "the callback was called 2 times; it must be called exactly once: call 1 with [CallbackExperiment.Profile(id: \"u1\""
            ) ?? false,
            "\(recorder.messages)")
    }

    /// Without a watchdog, a relay never calls back when the app forgets: the helper says so
    /// within its timeout instead of hanging.
    func testTheHelperCatchesARelayWithoutAWatchdog() {
        let recorder = RecordingReporter()
        let app = AppProfiles(latency: latency)
        assertCalledExactlyOnce(within: 0.3, reporter: recorder.reporter) {
            (done: @escaping @Sendable ([Profile]) -> Void) in
            app.forgetting(["u1"], done)
        }
        XCTAssertEqual(recorder.messages, ["the callback was never called within 300 ms"])
    }

    func testOnlyOneOfManyRacingClaimsWins() {
        let once = ExactlyOnce()
        let winners = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 200) { i in
            if once.claim(by: i.isMultiple(of: 2) ? "app" : "watchdog") { winners.add(1, ordering: .relaxed) }
        }
        XCTAssertEqual(winners.load(ordering: .relaxed), 1)
        XCTAssertEqual(once.attempts, 200)
        XCTAssertEqual(once.refused.count, 199)
        XCTAssertEqual(once.winner?.number, 1)
    }

    /// A call that comes after the watchdog settled the operation loses the race and is
    /// reported as such.
    func testALateCallAfterTheLibraryGaveUpIsIgnored() {
        let late: ChatLibrary.FetchProfilesBlock = { ids, handler in
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(400)) {
                handler(ids.map { Profile(id: $0, name: "late") })
            }
        }
        let lib = ChatLibrary(source: .completionHandler(late), patience: 0.1)
        let rendered = CallProbe<Rendering>()
        lib.open(.sample, callback: rendered.callback)
        XCTAssertTrue(rendered.waitForCall(within: 2))
        let deadline = MonotonicClock.now() + 3
        while lib.handlerCalls == 0 && MonotonicClock.now() < deadline { MonotonicClock.sleep(for: 0.01) }
        rendered.settle(for: 0.1)
        XCTAssertEqual(rendered.count, 1)
        XCTAssertEqual(rendered.first?.value.names, .idsOnly)
        XCTAssertEqual(lib.diagnostics.map(\.kind), [.neverCalled, .calledAgain])
        XCTAssertTrue(lib.diagnostics.last?.message.contains("after the library had given up on it") ?? false)
    }
}

/// Collects the helper's failure messages instead of failing the test.
final class RecordingReporter: Sendable {
    private let storage = Mutex<[String]>([])
    var messages: [String] { storage.withLock { $0 } }
    var reporter: FailureReporter {
        FailureReporter { [self] message, _ in storage.withLock { $0.append(message) } }
    }
}
