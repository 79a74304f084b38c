import Foundation
import HarnessUserKit
import LabHarnessXCTest
import XCTest

/// Budgets under a stall of the whole machine: each test stops this process for 1 s
/// (`MachineStall`; XCTest runs one test at a time, so no other test is stopped with it), with
/// budgets of 0.5 s. Correct code, late only because the process was stopped, passes (a note on
/// stdout names the stall); a leak still fails. Without the allowance every fixed case failed.
final class MachineStallXCTests: CapturingTestCase {
    func stall() throws -> MachineStall { try MachineStall(after: 0.15, for: 1.0) }

    func testAReplyAfterAStall_isReleased() throws {
        let stall = try stall()
        XCTAssertNotNil(assertReleased(within: 0.5) { StalledReply(releasedAfter: stall) })
    }

    @MainActor func testAMainActorReplyAfterAStall_isReleased() async throws {
        let stall = try stall()
        var reply: StalledReply? = StalledReply(releasedAfter: stall)
        let took = await assertReleased(&reply, within: 0.5)
        XCTAssertGreaterThan(took ?? 0, 0.5, "released only after the stall")
    }

    func testACallbackOnTheMainQueueAfterAStall_passes() throws {
        let stall = try stall()
        XCTAssertNotNil(
            assertCalledOnMainQueue(within: 0.5) { done in stall.whenOver { DispatchQueue.main.async { done(()) } } })
    }

    func testABlockThatWaitsOutAStall_completes() throws {
        let stall = try stall()
        XCTAssertNotNil(assertCompletes(within: 0.5) { stall.waitUntilOver(timeout: 10) })
    }

    func testATrackedReplyAfterAStall_isReleased() throws {
        let check = LeakCheck()
        check.track(StalledReply(releasedAfter: try stall()))
        check.assertAllReleased(within: 0.5)
    }

    func testALeakUnderAStall_stillFails() throws {
        let stall = try stall()
        HarnessAssertions.$secondLookFloor.withValue(0.5) {
            expectOneFailure(
                atLine: #line + 2, containing: "LeakyDownloader was not released within 500 ms",
                "; the wait was extended by", "(a retain cycle)") {
                assertReleased(within: 0.5) { () -> LeakyDownloader in
                    let downloader = LeakyDownloader()
                    downloader.start()
                    return downloader
                }
            }
        }
        stall.waitUntilOver(timeout: 10)
    }
}
