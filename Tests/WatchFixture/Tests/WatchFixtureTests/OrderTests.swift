import WatchFixtureKit
import XCTest

/// Runs in name order: a pass before and after each misbehaving test.
final class OrderTests: XCTestCase {
    func test1PassesFirst() { XCTAssertEqual(1 + 1, 2) }

    func test2Deadlocks() { Ledger().transferBothWays() }

    func test3PassesAfterDeadlock() { XCTAssertEqual([3, 1, 2].sorted(), [1, 2, 3]) }

    func test4Spins() { XCTAssertGreaterThan(Spinner.spinForever(), -1) }

    func test5PassesAfterSpin() { XCTAssertEqual("spin".count, 4) }

    func test6FailsAnAssertion() { XCTAssertEqual(1, 2, "an ordinary failure") }

    func test7Crashes() { Crasher.trap("the fixture crashes on purpose") }

    func test8PassesLast() { XCTAssertEqual(String(42), "42") }
}
