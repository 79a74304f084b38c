import Foundation
import HarnessUserKit
import LabHarnessXCTest
import XCTest

/// The hang watch: a time limit on every test, with every thread's stack when one overruns.
/// Installed here, in a class `setUp`, it watches every XCTest test of this process from the
/// first test of this class on.
final class HangWatchXCTests: CapturingTestCase {
    /// Set in a copy of this test binary that runs the hung probe alone, with a 2 s limit.
    static let probeVariable = "HARNESS_USER_HANG_PROBE"
    static var isProbe: Bool { ProcessInfo.processInfo.environment[probeVariable] != nil }

    override class func setUp() {
        super.setUp()
        HangWatchObserver.install(after: isProbe ? 2 : 30)
    }

    func testAQueueFetchUnderTheHangWatch_passes() {
        XCTAssertEqual(QueueFetcher().fetchSynchronously(), "payload")
    }

    func testAHungFetchUnderTheHangWatch_endsTheRunNamingTheFrame() throws {
        try skipWithoutStacks()
        if Self.isProbe {
            _ = MainQueueFetcher().fetchSynchronously()  // deadlocks: the main queue waits for this thread
            return
        }
        let run = try runAloneInAChild(#function, environment: [Self.probeVariable: "1"])
        XCTAssertEqual(run.outcome, .failed, run.evidence)
        let output = xctestLog(run)
        // The frames are named when naming has time left; when it had none, the report says so
        // for each library it could not name (seen in a CI run beside builds at a load of 100
        // and more on 2 CPUs: "no time left to name HarnessUserXCTests.so"), and names none.
        let named = !output.contains("no time left to name HarnessUserXCTests.so")
        for text in [
            "HangWatchXCTests.testAHungFetchUnderTheHangWatch_endsTheRunNamingTheFrame : ",
            "ran past its hang watch of 2.00 s; where every thread was:", "(main thread): in ",
            named ? "← MainQueueFetcher.fetchSynchronously (MainQueueFetchers.swift:21)" : "(main thread): in ",
            "ending the process",
        ] {
            XCTAssertTrue(output.contains(text), "missing \"\(text)\" in: \(output)")
        }
        // The child ended itself ("ending the process", outcome failed), not killed at its 30 s
        // budget (outcome deadlock): no wall-clock bound here, which a loaded machine crosses
        // (15.1 s in that CI run).
    }
}
