import Foundation
@testable import RunloopExperiment
import XCTest

/// timer-init's outcome and its finding share one rule for "fired at once" (`TimerInit`).
final class TimerInitRuleTests: XCTestCase {
    /// The first-fire rule, at the quick 250 ms interval: a stall never makes a timer fire
    /// before it is due, so one that waited its interval is never "at once", however much of a
    /// stall before its due time is taken off; one due at once that a stall held back is.
    func testTheFirstFireRule() {
        XCTAssertTrue(TimerInit.firedAtOnce(measured: 0.002, net: 0.002, interval: 0.25))
        XCTAssertTrue(TimerInit.firedAtOnce(measured: 0.180, net: 0.010, interval: 0.25), "held back by a stall")
        XCTAssertFalse(
            TimerInit.firedAtOnce(measured: 0.250, net: 0.120, interval: 0.25), "waited, beside a 130 ms stall")
        XCTAssertFalse(TimerInit.firedAtOnce(measured: 0.140, net: 0.140, interval: 0.25), "not at once")
    }
}
