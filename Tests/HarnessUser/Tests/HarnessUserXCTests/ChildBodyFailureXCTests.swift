import Foundation
import HarnessUserKit
import LabHarnessXCTest
import XCTest

/// A failure the child's test records inside an `assertInChildProcess` body (the body's own
/// assertions, an `XCTFail`) ends the child `failed`, and the parent's failure quotes it. Before,
/// the child's XCTest recorded it, the child exited 0 after its settle time, and the parent
/// reported `completed`: a pass. (`expectOneFailure` captures nothing in the child: the body's
/// failures are the child's XCTest's to record.)
final class ChildBodyFailureXCTests: CapturingTestCase {
    /// Bad: the block overruns its budget inside the child.
    func testAnOverrunInAChildsBody_failsTheTrialQuotingIt() {
        expectOneFailure(atLine: #line + 3, containing: "expected the child to end completed, it ended failed",
                         "the body recorded 1 failure: ChildBodyFailureXCTests.swift:\(#line + 3): ",
                         "did not complete within 200 ms") {
            assertInChildProcess(expecting: .completed, budget: 30) {
                assertCompletes(within: .milliseconds(200)) { Thread.sleep(forTimeInterval: 0.5) }
            }
        }
    }

    /// Bad: the object the body makes is never released.
    func testALeakInAChildsBody_failsTheTrialQuotingIt() {
        expectOneFailure(atLine: #line + 3, containing: "expected the child to end completed, it ended failed",
                         "the body recorded 1 failure: ChildBodyFailureXCTests.swift:\(#line + 3): ",
                         "LeakyDownloader was not released within 200 ms") {
            assertInChildProcess(expecting: .completed, budget: 30) {
                assertReleased(within: .milliseconds(200)) { () -> LeakyDownloader in
                    let downloader = LeakyDownloader()
                    downloader.start()
                    return downloader
                }
            }
        }
    }

    /// Bad: the body's own `XCTFail`, and a second one from another thread during the settle time.
    func testXCTFailsInAChildsBodyAndSettleTime_failTheTrialQuotingThem() {
        expectOneFailure(atLine: #line + 2, containing: "expected the child to end completed, it ended failed",
                         "the body recorded 2 failures: (1) ", "the body's own", "(2) ", "a late one") {
            assertInChildProcess(expecting: .completed, budget: 30) {
                XCTFail("the body's own")
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { XCTFail("a late one") }
            }
        }
    }

    /// Fixed: the block returns in time and nothing is kept; the child completes.
    func testAChildsBodyThatPasses_completes() {
        let run = assertInChildProcess(expecting: .completed, budget: 30) {
            assertCompletes(within: 2) { Thread.sleep(forTimeInterval: 0.05) }
            assertReleased(within: 1) { () -> TidyDownloader in
                let downloader = TidyDownloader()
                downloader.start()
                return downloader
            }
        }
        XCTAssertEqual(run?.resultPayload, "returned")
    }
}
