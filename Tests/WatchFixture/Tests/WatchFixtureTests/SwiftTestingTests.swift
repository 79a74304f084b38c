import Testing
import WatchFixtureKit

/// Swift Testing's part, run one at a time so the order is known. The first two tests have a
/// display name, which Swift Testing prints instead of the function's.
@Suite(.serialized) struct SerialSuite {
    @Test("passes first") func firstPasses() { #expect(1 + 1 == 2) }

    @Test("deadlocks too") func deadlocksToo() { Ledger().transferBothWays() }

    @Test func lastPasses() { #expect(true) }
}

/// A test of the same name in another suite: Swift Testing's lines print both as
/// `lastPasses()`, its event stream tells them apart by id.
@Suite struct NamesakeSuite {
    @Test func lastPasses() { #expect(true) }
}
