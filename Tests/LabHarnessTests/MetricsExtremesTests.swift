import LabHarness
import XCTest

/// Rounding to six significant digits never turns a finite value into NaN or infinity, which
/// JSON cannot hold (a report with one would not encode at all).
final class MetricsExtremesTests: XCTestCase {
    func testRoundingKeepsEveryFiniteValueFinite() {
        for value in [
            Double.leastNonzeroMagnitude, -Double.leastNonzeroMagnitude, Double.leastNormalMagnitude / 1e6, 1e-300,
            Double.leastNormalMagnitude,
            Double.greatestFiniteMagnitude, -Double.greatestFiniteMagnitude, 1e300, 123.4567891,
        ] {
            let rounded = Metrics.round(value)
            XCTAssertTrue(rounded.isFinite, "\(value) rounded to \(rounded)")
            XCTAssertEqual(rounded, value, accuracy: abs(value) * 1e-5, "\(value)")
            var metrics = Metrics()
            metrics["x"] = value
            XCTAssertNotNil(metrics["x"], "\(value) is kept")
        }
    }
}
