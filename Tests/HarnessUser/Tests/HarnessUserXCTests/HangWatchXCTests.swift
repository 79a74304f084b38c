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
        for text in [
            "HangWatchXCTests.testAHungFetchUnderTheHangWatch_endsTheRunNamingTheFrame : ",
            "ran past its hang watch of 2.00 s; where every thread was:",
            // The library's frame is named when naming has time left; the author's come first.
            "(main thread): in ", "← MainQueueFetcher.fetchSynchronously (MainQueueFetchers.swift:21)",
            "ending the process",
        ] {
            XCTAssertTrue(output.contains(text), "missing \"\(text)\" in: \(output)")
        }
        // The 2 s limit, a stack, half a second of grace, and the start of a process: the
        // child's end is reported, not the 30 s budget. (How close to limit + 2 s it comes is
        // measured in notes, not judged here, where a loaded machine can stall.)
        XCTAssertLessThan(run.wall, 15, "the run ended after \(run.wall) s")
    }
}
