import Foundation
import HarnessUserKit
import LabHarnessXCTest
import XCTest

/// Budgets under a stall of the whole machine: each test stops this process for 1 s
/// (`MachineStall`; XCTest runs one test at a time, so no other test is stopped with it), with
/// budgets of 0.8 s. Correct code, late only because the process was stopped, passes (a note on
/// stdout names the stall); a leak still fails. Without the allowance every fixed case failed.
final class MachineStallXCTests: CapturingTestCase {
    func stall() throws -> MachineStall { try MachineStall(after: 0.15, for: 1.0) }

    func testAReplyAfterAStall_isReleased() throws {
        let stall = try stall()
        XCTAssertNotNil(assertReleased(within: 0.8) { StalledReply(releasedAfter: stall) })
    }

    @MainActor func testAMainActorReplyAfterAStall_isReleased() async throws {
        let stall = try stall()
        var reply: StalledReply? = StalledReply(releasedAfter: stall)
        let took = await assertReleased(&reply, within: 0.8)
        XCTAssertGreaterThan(took ?? 0, 0.8, "released only after the stall, past its budget")
    }

    func testACallbackOnTheMainQueueAfterAStall_passes() throws {
        let stall = try stall()
        XCTAssertNotNil(
            assertCalledOnMainQueue(within: 0.8) { done in stall.whenOver { DispatchQueue.main.async { done(()) } } })
    }

    func testABlockThatWaitsOutAStall_completes() throws {
        let stall = try stall()
        XCTAssertNotNil(assertCompletes(within: 0.8) { stall.waitUntilOver(timeout: 10) })
    }

    func testATrackedReplyAfterAStall_isReleased() throws {
        let check = LeakCheck()
        check.track(StalledReply(releasedAfter: try stall()))
        check.assertAllReleased(within: 0.8)
    }

    /// Not a stall: the main thread the wait runs on was busy in a main-queue block for 1.6 s,
    /// and saw a reply that came at 1.2 s only after its 100 ms budget. The reply
    /// recorded its own time, so it is late, not a pass.
    func testAReplyTheBusyMainThreadSawAfterItsBudget_fails() {
        expectOneFailure(atLine: #line + 1, containing: "after the start, past its 100 ms budget") {
            assertCalledExactlyOnce(within: 0.1, grace: 0.05) { done in
                DispatchQueue.main.async { Thread.sleep(forTimeInterval: 1.6) }  // the busy main thread is the point
                DispatchQueue.global().asyncAfter(deadline: .now() + 1.2) { done() }
            }
        }
    }

    func testALeakUnderAStall_stillFails() throws {
        let stall = try stall()
        HarnessAssertions.$secondLookFloor.withValue(0.5) {
            expectOneFailure(
                atLine: #line + 2, containing: "LeakyDownloader was not released within 800 ms",
                "; the wait was extended by", "(a retain cycle)") {
                assertReleased(within: 0.8) { () -> LeakyDownloader in
                    let downloader = LeakyDownloader()
                    downloader.start()
                    return downloader
                }
            }
        }
        stall.waitUntilOver(timeout: 10)
    }
}
