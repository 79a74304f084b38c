import Foundation
import HarnessUserKit
import LabHarnessTesting
import Testing

/// A parameterized test's cases run side by side (this suite is outside the serialized
/// `HarnessUserSwiftTests`), each in `assertCompletes` at one line. In a copy of this binary
/// started with `HARNESS_USER_SIDE_BY_SIDE_PROBE`, case 0 is stuck for good and case 1 is slow
/// but within its budget, and starts waiting last: the watchdog that ends the process must fail
/// case 0, not the last case to wait at that line (which it did). Without the probe both pass.
@Suite struct SideBySide {
    static var probing: Bool { ProcessInfo.processInfo.environment["HARNESS_USER_SIDE_BY_SIDE_PROBE"] != nil }

    @Test(arguments: [0, 1]) func aCaseStuckBesideASlowOne(_ n: Int) {
        let (budget, work): (Double, Double) = Self.probing ? (n == 0 ? (0.2, 60) : (4, 2.5)) : (5, 0)
        if n == 1 && Self.probing { Thread.sleep(forTimeInterval: 0.05) }  // waits last
        assertCompletes(within: budget) { Thread.sleep(forTimeInterval: work) }  // case 0: the hang is the point
    }

    /// A hang watch cuts short the second look of its own test's waits only: a late release
    /// beside another test's watch (scoped to that test, as the trait makes it) is still seen as
    /// late, not cut off a second before the other watch fires and read as a leak (which it was:
    /// the second look ended at 2.2 s, before the release at 2.5 s).
    @Test func aLateReleaseBesideAnotherTestsHangWatchIsReadAsLate() {
        guard !Self.probing else { return }
        let other = HangWatch(limit: 3.2, testName: "a watched test beside", scoped: true) { _ in }
        defer { other.testEnded() }
        HarnessUserSwiftTests.expectOneIssue(
            atLine: #line + 1, containing: "SlowlyReleased was not released within 200 ms", "released late") {
            assertReleased(within: 0.2) { SlowlyReleased(after: 2.5) }
        }
    }

    /// The copy's issue is case 0's, and case 1 recorded none.
    @Test(.stacksAvailable) func theStuckCaseIsFailedNotTheOneBesideIt() throws {
        guard !Self.probing else { return }
        let (run, output) = try HarnessUserSwiftTests.runCopy(
            filter: "SideBySide/aCaseStuckBesideASlowOne", environment: ["HARNESS_USER_SIDE_BY_SIDE_PROBE": "1"],
            budget: 90)
        #expect(run.outcome == .failed, "\(run.evidence)\n\(output)")
        #expect(output.contains("recorded an issue with 1 argument n → 0 at"), "\(output)")
        #expect(!output.contains("recorded an issue with 1 argument n → 1 at"), "\(output)")
    }
}
