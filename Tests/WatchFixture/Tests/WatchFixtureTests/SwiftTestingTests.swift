import Testing
import WatchFixtureKit

/// Swift Testing's part, run one at a time so the order is known. The first two tests have a
/// display name, which Swift Testing prints instead of the function's.
@Suite(.serialized) struct SerialSuite {
    @Test("passes first") func firstPasses() { #expect(1 + 1 == 2) }

    @Test("deadlocks too") func deadlocksToo() { Ledger().transferBothWays() }

    @Test func lastPasses() { #expect(true) }

    /// Ends the Swift Testing process: the tests after it run in a new round.
    @Test func crashesToo() { Crasher.trap("the fixture crashes on purpose, in Swift Testing") }

    /// A test of the same name in a suite of its own: Swift Testing's lines print both as
    /// `lastPasses()`, its event stream tells them apart by id. Nested, so it runs in turn
    /// with the others too, never beside the crash.
    @Suite struct NamesakeSuite {
        @Test func lastPasses() { #expect(true) }
    }
}
