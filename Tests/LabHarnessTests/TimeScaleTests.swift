import LabHarness
import XCTest

/// Time axes take their unit and end from the data, so microseconds read as microseconds.
final class TimeScaleTests: XCTestCase {
    func testMicrosecondsAreDrawnOnAMicrosecondAxis() {
        let scale = TimeScale(longest: 6e-6)
        XCTAssertEqual(scale.unit, "µs")
        XCTAssertEqual(scale.label(scale.end), "6 µs")
        XCTAssertEqual(scale.fraction(3e-6), 0.5, accuracy: 1e-9)
    }

    func testTheEndIsARoundNumberAtOrAboveTheLongestTime() {
        XCTAssertEqual(TimeScale(longest: 0.5003).label(TimeScale(longest: 0.5003).end), "600 ms")
        XCTAssertEqual(TimeScale(longest: 2).label(TimeScale(longest: 2).end), "2 s")
        XCTAssertEqual(TimeScale(longest: 0.0007).label(TimeScale(longest: 0.0007).end), "800 µs")
        // Just under a millisecond rounds up to a millisecond, in ms.
        XCTAssertEqual(TimeScale(longest: 0.00095).label(TimeScale(longest: 0.00095).end), "1 ms")
        for longest in [1e-6, 7e-6, 3.3e-4, 0.012, 0.25, 1.7, 42.0] {
            let scale = TimeScale(longest: longest)
            XCTAssertGreaterThanOrEqual(scale.end, longest * (1 - 1e-9))
            XCTAssertGreaterThanOrEqual(longest / scale.end, 0.6, "\(longest) on \(scale.end)")
        }
    }

    func testTimesPastTheEndAndNonsenseAreClamped() {
        let scale = TimeScale(longest: .nan)
        XCTAssertEqual(scale.unit, "s")
        XCTAssertEqual(TimeScale(longest: 1).fraction(5), 1)
        XCTAssertEqual(TimeScale(longest: 1).fraction(-1), 0)
    }
}
