import Foundation
import WatchFixtureKit
import XCTest

/// A class whose `class func setUp()` (or `tearDown()`) deadlocks when `WATCH_FIXTURE_HOLD`
/// names `setUp` (or `tearDown`): XCTest runs it with none of the class's tests running, so no
/// test's timeout can find it, only `lab watch`'s quiet timeout. Without the variable its tests
/// pass like any other.
final class HeldClassTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        if Hold.names("setUp") { Ledger().transferBothWays() }
    }

    override class func tearDown() {
        if Hold.names("tearDown") { Ledger().transferBothWays() }
        super.tearDown()
    }

    func testFirstOfItsClass() { XCTAssertEqual(Set([1, 1, 2]).count, 2) }

    func testSecondOfItsClass() { XCTAssertEqual("held".uppercased(), "HELD") }
}

/// `WATCH_FIXTURE_HOLD`: the places to hold, comma-separated (`setUp,suite`).
enum Hold {
    static func names(_ place: String) -> Bool {
        (ProcessInfo.processInfo.environment["WATCH_FIXTURE_HOLD"] ?? "").split(separator: ",").contains { $0 == place }
    }
}
