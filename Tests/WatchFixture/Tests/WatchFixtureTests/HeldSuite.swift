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

/// A test at the module's top level (its id has no `/`: `WatchFixtureTests.spinsAtTopLevel()`)
/// that spins when `WATCH_FIXTURE_HOLD` names `spin`: only its test timeout can end it, as it
/// keeps a CPU busy.
@Test func spinsAtTopLevel() { #expect(!Hold.names("spin") || Spinner.spinForever() > -1) }
