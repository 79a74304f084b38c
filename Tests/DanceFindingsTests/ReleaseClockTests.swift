import Foundation
import LabHarness
@testable import DanceExperiment
import XCTest

/// heap-stack-delayed orders two events: completion1, and foo's release right after it. Both
/// instants come from one clock, taken at the events themselves and compared as taken, so a
/// release that follows completion1 in program order is never judged `released-early` (before,
/// completion1's time was read back from the report's event, rounded to six digits, which at a
/// second into the trial is 10 µs: a release 1 µs after it could land before it).
final class ReleaseClockTests: XCTestCase {
    func testAReleaseThatFollowsCompletion1IsNeverEarly() throws {
        let options = try danceExperiment.parser.parse([])
        let context = VariantContext(
            variant: DanceVariant.heapStackDelayed.rawValue, options: options, inChild: false,
            parameters: DanceParameters(options))
        // A second into the trial, as in the experiment (its delay is 1-2 s), where rounding
        // the event's time to six digits moved it by up to 5 µs.
        MonotonicClock.sleep(for: 1.05)
        // An owner timed as the variant's Foo is: its deinit calls the trial's `ownerDeinit`.
        final class Owner {
            let onDeinit: () -> Void
            init(onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
            deinit { onDeinit() }
        }
        var early = 0, untimed = 0
        for index in 0..<2_000 {
            let trial = LifetimeTrial(context, owner: "foo-\(index)", grace: 1)
            var owner: Owner? = Owner(onDeinit: trial.ownerDeinit)
            trial.watch(owner!)
            context.event("completion1-\(index)")
            owner = nil  // released after completion1, in program order
            let after = MonotonicClock.now()
            XCTAssertNil(owner)
            // Timed by the deinit itself, before the line after it: nothing polled the owner.
            if !(trial.releasedAt.map { $0 <= after } ?? false) { untimed += 1 }
            let outcome = HeapStackDelayed.order(
                released: true, completion1: context.instant(of: "completion1-\(index)"),
                releasedAt: trial.releasedAt, machineDelay: 0, delay: 1)
            if outcome == "released-early" { early += 1 }
        }
        XCTAssertEqual(untimed, 0, "releases not timed by the owner's deinit")
        XCTAssertEqual(early, 0, "releases right after completion1 judged early")
    }

    /// The rule itself: before completion1 is early, at or after it within half the delay is
    /// on time, later than that (less a stall a same-moment control saw) is late.
    func testTheOrderRule() {
        let c1: Seconds = 1_000_000.000_001  // an uptime of 11 days, where a Double keeps ~0.1 ns
        XCTAssertEqual(
            HeapStackDelayed.order(released: true, completion1: c1, releasedAt: c1.nextDown, machineDelay: 0, delay: 1),
            "released-early")
        XCTAssertEqual(
            HeapStackDelayed.order(released: true, completion1: c1, releasedAt: c1, machineDelay: 0, delay: 1),
            .completed)
        XCTAssertEqual(
            HeapStackDelayed.order(released: true, completion1: c1, releasedAt: c1 + 0.6, machineDelay: 0, delay: 1),
            "released-late")
        XCTAssertEqual(
            HeapStackDelayed.order(released: true, completion1: c1, releasedAt: c1 + 0.6, machineDelay: 0.2, delay: 1),
            .completed)
        XCTAssertEqual(
            HeapStackDelayed.order(released: true, completion1: nil, releasedAt: c1, machineDelay: 0, delay: 1),
            "released-early")
        XCTAssertEqual(
            HeapStackDelayed.order(released: false, completion1: c1, releasedAt: nil, machineDelay: 0, delay: 1),
            .leaked)
    }

    /// An event's time as the context gives it back is the instant it was logged, unrounded
    /// (the report's copy is rounded for reading only), so steps a microsecond apart stay in
    /// order for `stepsInOrder` and the like.
    func testEventTimesAreKeptAsTaken() throws {
        let options = try danceExperiment.parser.parse([])
        let context = VariantContext(
            variant: DanceVariant.heapStackDelayed.rawValue, options: options, inChild: false,
            parameters: DanceParameters(options))
        let at = context.startedAt + 1.234_567_891
        XCTAssertEqual(context.event("x", at: at), at)
        XCTAssertEqual(context.instant(of: "x"), at)
        XCTAssertEqual(context.time(of: "x"), at - context.startedAt)
        XCTAssertEqual(context.events.first?.t, at - context.startedAt)
        context.event("y", at: at + 0.000_000_5)
        XCTAssertEqual(context.events.map(\.label), ["x", "y"])
        XCTAssertLessThan(
            try XCTUnwrap(context.events.first?.t), try XCTUnwrap(context.events.last?.t),
            "half a microsecond apart, still ordered")
    }
}
