import Testing
import WatchFixtureKit

/// Swift Testing's part, run one at a time so the order is known.
@Suite(.serialized) struct SerialSuite {
    @Test func firstPasses() { #expect(1 + 1 == 2) }

    @Test func deadlocksToo() { Ledger().transferBothWays() }

    @Test func lastPasses() { #expect(true) }
}
