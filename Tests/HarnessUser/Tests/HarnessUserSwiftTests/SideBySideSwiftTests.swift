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

    /// A hang watch cuts short the second look of its own test's waits only: a late release in
    /// a task beside a watched body (another test, in a parallel run) is still seen as late, not
    /// cut off a second before the other watch's limit and read as a leak (which it was).
    @Test func aLateReleaseBesideAnotherTestsHangWatchIsReadAsLate() async {
        guard !Self.probing else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                // Blocking, so that a pool held by tests beside this one cannot make it overrun.
                try? await HangWatchTrait(limit: 3).watch(testName: "a watched test beside") {
                    Self.block(for: 1)
                }
            }
            group.addTask {
                await settleBeforeExit(for: 0.1)  // the watch runs
                await HarnessUserSwiftTests.expectOneIssue(
                    atLine: #line + 1, containing: "SlowlyReleased was not released within 200 ms", "released late") {
                    await assertReleased(within: 0.2) { SlowlyReleased(after: 2.5) }
                }
            }
        }
    }

    /// Holds the calling thread for `seconds`.
    static func block(for seconds: Double) { Thread.sleep(forTimeInterval: seconds) }

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
