import Foundation
import LabHarness
import XCTest

/// An owner that stores a closure; whether it leaks depends on what the closure captures.
private final class Owner {
    let tag: LifetimeTag?
    var action: (() -> Void)?
    init(tag: LifetimeTag? = nil) { self.tag = tag }
    func work() {}
}

final class ReleaseTrackerTests: XCTestCase {
    /// The known truth: a closure stored on its owner that captures the owner is a cycle, and
    /// the tracker reports the owner as never released.
    func testAClosureThatCapturesItsOwnerIsNotReleased() {
        let tracker = ReleaseTracker()
        do {
            let owner = Owner()
            owner.action = { owner.work() }
            tracker.track(owner, "cycle")
        }
        tracker.markScopeEnd("cycle")
        XCTAssertFalse(tracker.waitUntilReleased("cycle", within: 0.2))
        XCTAssertTrue(tracker.isAlive("cycle"))
        XCTAssertNil(tracker.releaseDelay("cycle"))
        XCTAssertEqual(tracker.aliveLabels, ["cycle"])
    }

    func testAWeakCaptureIsReleasedAtScopeEnd() throws {
        let tracker = ReleaseTracker()
        do {
            let owner = Owner()
            owner.action = { [weak owner] in owner?.work() }
            tracker.track(owner, "weak")
            XCTAssertTrue(tracker.isAlive("weak"))
        }
        tracker.markScopeEnd("weak")
        XCTAssertTrue(tracker.waitUntilReleased("weak", within: 1))
        let delay = try XCTUnwrap(tracker.releaseDelay("weak"))
        // Released before the scope mark (the reference went at the closing brace) or polled
        // within a millisecond or so after it.
        XCTAssertLessThan(delay, 0.1)
        XCTAssertFalse(tracker.releaseTimeIsExact("weak"))
    }

    /// A lifetime tag gives the exact moment of release, here measured against a delayed drop.
    func testATagTimesTheReleaseExactly() throws {
        let tracker = ReleaseTracker()
        let holder = Holder()
        do {
            let owner = Owner(tag: tracker.tag("tagged"))
            tracker.track(owner, "tagged")
            holder.hold(owner)
        }
        tracker.markScopeEnd("tagged")
        MonotonicClock.sleep(for: 0.1)
        XCTAssertTrue(tracker.isAlive("tagged"))
        holder.drop()
        XCTAssertFalse(tracker.isAlive("tagged"))
        XCTAssertTrue(tracker.releaseTimeIsExact("tagged"))
        let delay = try XCTUnwrap(tracker.releaseDelay("tagged"))
        XCTAssertGreaterThanOrEqual(delay, 0.1)
        XCTAssertLessThan(delay, 2)
    }

    func testUnknownLabelsAreNotAlive() {
        XCTAssertFalse(ReleaseTracker().isAlive("nothing"))
    }
}

/// Keeps an object alive until told to let go.
private final class Holder {
    private var object: AnyObject?
    func hold(_ object: AnyObject) { self.object = object }
    func drop() { object = nil }
}
