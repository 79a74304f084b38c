import Foundation
import HarnessUserKit
import LabHarnessXCTest
import Synchronization
import XCTest

/// A second call or a trap that comes after the body returns is still seen: the exactly-once
/// checks watch a second after the first call unless told, and a child trial lives on for half
/// a second after its body returns.
final class SettleXCTests: CapturingTestCase {
    /// Bad: the late reply calls back 300 ms after the timeout did (the 0.1 s of before missed it).
    func testARacingLoader_failsTheExactlyOnceCheck() {
        expectOneFailure(atLine: #line + 1, containing: "the callback was called 2 times", "call 2 with success(\"late reply\")") {
            assertCalledExactlyOnce(within: 1) { (done: @escaping @Sendable (Result<String, LoadError>) -> Void) in
                RacingLoader(replyDelay: 0.3).load(completion: done)
            }
        }
    }

    /// Fixed: one call; the pass says how long it watched for a second.
    func testAGuardedLoader_passesSayingHowLongItWatched() {
        let notes = Mutex<[String]>([])
        let site = FailureSite(fileID: #fileID, filePath: #filePath, line: #line, column: #column)
        var call = AssertionCall(reporter: FailureReporter { message, _ in XCTFail(message) }, site: site)
        call.note = { text, _ in notes.withLock { $0.append(text) } }
        let first = HarnessAssertions.calledExactlyOnce(within: 1, grace: HarnessAssertions.defaultGrace, call) {
            (done: @escaping @Sendable (Result<String, LoadError>) -> Void) in
            GuardedLoader(replyDelay: 0.3).load(completion: done)
        }
        XCTAssertNotNil(first)
        let said = notes.withLock { $0 }
        XCTAssertEqual(said.count, 1, "\(said)")
        XCTAssertTrue(said.first?.contains("no second call came in the 1.00 s watched after it") ?? false, "\(said)")
    }

    /// Bad: the body returns, and the late reply resumes its continuation a second time 50 ms
    /// later: a trap in the child's settle time (before, the child had exited: a pass).
    func testARacingLoaderInAChild_crashesAfterItsBodyReturns() {
        // Its crashing thread's frames, from the runtime's crash report (before: the report's
        // last three lines, its list of loaded images). An optimized build inlines `resume` into
        // the closure; the runtime's message still names it.
        #if DEBUG
            let frames = "in CheckedContinuation.resume ← closure in RacingLoader.load (Loaders.swift:"
        #else
            let frames = "SWIFT TASK CONTINUATION MISUSE"
        #endif
        expectOneFailure(atLine: #line + 3, containing: "expected the child to end completed, it ended crashed",
                         "its crashing thread:", frames, "closure in RacingLoader.load (Loaders.swift:") {
            // The same line in the child runs the body; its failure is the parent's.
            assertInChildProcess(expecting: .completed, budget: 30) {
                Self.loadWaiting(RacingLoader(replyDelay: 0.05).load)
            }
        }
    }

    /// Fixed: the guarded loader resumes once; the child completes.
    func testAGuardedLoaderInAChild_completes() {
        assertInChildProcess(expecting: .completed, budget: 30) {
            Self.loadWaiting(GuardedLoader(replyDelay: 0.05).load)
        }
    }

    /// Waits on this thread for an async load (a child trial's body is synchronous).
    static func loadWaiting(_ load: @escaping @Sendable () async -> Result<String, LoadError>) {
        let done = DispatchSemaphore(value: 0)
        Task {
            _ = await load()
            done.signal()
        }
        done.wait()
    }
}
