import Foundation
import HarnessUserKit
import LabHarnessTesting
import Testing

extension HarnessUserSwiftTests {
    /// A `.leakChecked` test that leaks fails, saying what holds each survivor as `LeakCheck`
    /// does, and so does one whose body throws after the leak. In an ordinary run `p1` and `p2`
    /// are the fixed code; in a copy of this binary started with `HARNESS_USER_LEAK_PROBE` they
    /// are the bad code, and `p9` reads that copy's output.
    @Suite struct LeakCheckedFailures {
        static var probe: Bool { ProcessInfo.processInfo.environment["HARNESS_USER_LEAK_PROBE"] != nil }

        struct ScreenFailedToLoad: Error {}

        /// Bad in the probe: the controller and its session keep each other.
        @Test(.leakChecked(grace: .milliseconds(200))) func p1_aScreenAndItsSession() {
            let controller = LeakChecked.track(ScreenController(), "p1 controller")
            if Self.probe {
                controller.open()
                LeakChecked.track(controller.session!, "p1 session")
            }
        }

        /// Bad in the probe: the same leak, then the body throws; the leak is still reported.
        @Test(.leakChecked(grace: .milliseconds(200))) func p2_aScreenThatFailsToLoad() throws {
            let controller = LeakChecked.track(ScreenController(), "p2 controller")
            if Self.probe {
                controller.open()
                LeakChecked.track(controller.session!, "p2 session")
                throw ScreenFailedToLoad()
            }
        }

        @Test func p9_aLeakCheckedTestThatLeaksFailsNamingTheHolders() throws {
            guard !Self.probe else { return }
            let (run, output) = try HarnessUserSwiftTests.runCopy(
                filter: "LeakCheckedFailures/p[12]", environment: ["HARNESS_USER_LEAK_PROBE": "1"], budget: 60)
            #expect(run.outcome == .failed, "\(run.evidence)\n\(output)")
            let file = "LeakCheckedSwiftTests.swift"
            for (test, tracked) in [("p1_aScreenAndItsSession()", 18), ("p2_aScreenThatFailsToLoad()", 27)] {
                let name = String(test.prefix(2))
                for text in [
                    "Test \(test) recorded an issue at \(file):\(tracked)",
                    "\(name) controller was still alive 200 ms after the check began (checked at \(file):",
                    "1 strong reference still holds it: held by \(name) session's stored property `delegate`",
                    "\(name) session was still alive 200 ms after the check began",
                    "held by \(name) controller's stored property `session`",
                ] {
                    #expect(output.contains(text), "missing \"\(text)\" in: \(output)")
                }
            }
            #expect(output.contains("Caught error: ScreenFailedToLoad()"), "the error is reported too: \(output)")
            #expect(output.contains("(the test threw ScreenFailedToLoad() first"), "\(output)")
        }
    }
}
