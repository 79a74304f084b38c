import Dispatch
@testable import LabHarness
import XCTest

/// A lifetime's grace is waited again for what a same-moment control lost meanwhile: a stall
/// that held the main queue through the grace (the delayed block that lets the owner go, due
/// in it) must not turn a release into a leak. heap-stack-delayed waits 0.25 s past its due
/// time at `--quick`, inside the 30-500 ms stalls of a loaded two-core machine.
final class LifetimeStallTests: XCTestCase {
    final class Owner: Sendable {
        let onDeinit: @Sendable () -> Void
        init(_ onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
        deinit { onDeinit() }
    }

    /// An owner that a main-queue block holds for 0.3 s, with a grace of 0.1 s.
    private func release(stalled: Seconds) throws -> LifetimeTrial {
        let now = MonotonicClock.now()
        let watch = StallWatch(recorded: stalled > 0 ? [(due: now, woke: now + stalled)] : [])
        let context = VariantContext(
            variant: "v", options: try CommandLineParser(program: "t", flags: []).parse([]), recordedStallWatch: watch)
        let trial = LifetimeTrial(context, owner: "owner", grace: 0.1)
        do {
            let owner = Owner(trial.ownerDeinit)
            trial.watch(owner)
            DispatchQueue.main.asyncAfter(deadline: .now() + 0.3) { withExtendedLifetime(owner) {} }
            trial.endScope(of: owner)
        }
        trial.awaitRelease()
        return trial
    }

    func testAStallTheControlSawIsWaitedAgain() throws {
        let trial = try release(stalled: 0.4)
        XCTAssertEqual(trial.released, true, trial.releaseSummary)
        // The stall as far as it had run when the owner went (0.2 s of the 0.4 s, here).
        XCTAssertGreaterThan(trial.metrics[LifetimeTrial.graceStallKey] ?? 0, 0.1)
    }

    func testWithoutAStallTheGraceDecides() throws {
        let trial = try release(stalled: 0)
        XCTAssertEqual(trial.released, false, trial.releaseSummary)
        XCTAssertNil(trial.metrics[LifetimeTrial.graceStallKey])
        withExtendedLifetime(trial) { MainQueueFriendlyWait.pass(0.3) }  // let the held owner go before the next test
    }
}
