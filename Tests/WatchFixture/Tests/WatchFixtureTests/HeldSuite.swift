import Testing
import WatchFixtureKit

/// A suite held before its test when `WATCH_FIXTURE_HOLD` names `suite`: its trait's scope
/// deadlocks where no test of it has started, outside any XCTest class, so `lab watch`'s quiet
/// timeout finds it and names the tests that did not run. Without the variable it passes.
@Suite(HoldsItsSuite()) struct HeldSuite {
    @Test func runsUnlessHeld() { #expect([2, 1].sorted() == [1, 2]) }
}

struct HoldsItsSuite: SuiteTrait, TestScoping {
    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // Blocks a thread of the cooperative pool for good: the point of the fixture.
        if Hold.names("suite") { Ledger().transferBothWays() }
        try await function()
    }
}
