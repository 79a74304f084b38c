import Foundation
import Synchronization

/// Tracks objects by label through weak references and says whether and when they were released.
///
/// ```swift
/// let tracker = ReleaseTracker()
/// do {
///     let owner = Owner()
///     tracker.track(owner, "owner")
///     owner.start()
/// }
/// tracker.markScopeEnd("owner")
/// tracker.waitUntilReleased("owner", within: 1)   // true, or false for a leak
/// tracker.releaseDelay("owner")                    // seconds from scope end to release
/// ```
///
/// Release time comes from one of two clocks. An object that carries a `LifetimeTag` made by
/// `tag(_:)` is timed exactly: the tag's `deinit` runs while its owner is being destroyed (a
/// `LifetimeTrial`'s owner is timed the same way by calling `ownerDeinit` from its `deinit`). Any
/// other object is timed by polling its weak reference, which `waitUntilReleased` does every
/// millisecond, so its release time is accurate to about that.
public final class ReleaseTracker: Sendable {
    private let entries = Mutex<[String: Entry]>([:])

    final class WeakBox: @unchecked Sendable {
        // Written once, at init; the runtime's weak loads are atomic, so reads from any thread are safe.
        weak var object: AnyObject?
        init(_ object: AnyObject?) { self.object = object }
    }

    private struct Entry {
        var box: WeakBox?
        var trackedAt: Seconds
        var scopeEndedAt: Seconds?
        var releasedAt: Seconds?
        var exact = false
    }

    public init() {}

    /// Starts tracking `object` under `label` (a label used again replaces the earlier entry).
    /// The tracker never keeps the object alive.
    public func track(_ object: AnyObject, _ label: String) {
        let box = WeakBox(object)
        let now = MonotonicClock.now()
        entries.withLock { $0[label] = Entry(box: box, trackedAt: now) }
    }

    /// A tag to store in an object you own; when the object is destroyed, the tag's `deinit`
    /// records the exact release time under `label`. Use it with `track(_:_:)` or alone.
    public func tag(_ label: String) -> LifetimeTag {
        let now = MonotonicClock.now()
        entries.withLock { entries in
            if entries[label] == nil { entries[label] = Entry(box: nil, trackedAt: now) }
        }
        return LifetimeTag { [self] at in markReleased(label, at: at) }
    }

    /// Records `label`'s release at `instant`, exactly: what a tag's `deinit` does, and what an
    /// object's own `deinit` does through `LifetimeTrial.ownerDeinit`.
    func markReleased(_ label: String, at instant: Seconds = MonotonicClock.now()) {
        entries.withLock { entries in
            entries[label, default: Entry(box: nil, trackedAt: instant)].releasedAt = instant
            entries[label]?.exact = true
        }
    }

    /// Records that the scope which owned the object has ended: the reference point for
    /// `releaseDelay(_:)`. Returns the instant recorded (monotonic), for a timeline to use.
    @discardableResult
    public func markScopeEnd(_ label: String) -> Seconds {
        let now = MonotonicClock.now()
        entries.withLock { $0[label]?.scopeEndedAt = now }
        return now
    }

    /// Whether the object is still alive. Unknown labels are not alive.
    public func isAlive(_ label: String) -> Bool {
        guard let (box, released) = entries.withLock({ e in e[label].map { ($0.box, $0.releasedAt) } }) else {
            return false
        }
        if released != nil { return false }
        guard let box else { return true }  // tag-only entry whose tag has not gone yet
        // The weak load happens outside the lock: the temporary strong reference it makes may
        // be the last one, and the deinit it then triggers may reach this tracker (a tag).
        if box.object != nil { return true }
        let now = MonotonicClock.now()
        entries.withLock { e in
            if e[label]?.releasedAt == nil { e[label]?.releasedAt = now }
        }
        return false
    }

    /// Labels of every tracked object still alive.
    public var aliveLabels: [String] {
        let labels = entries.withLock { Array($0.keys) }
        return labels.filter(isAlive).sorted()
    }

    /// Waits until the object is released or `timeout` seconds pass; true when released. On the
    /// main thread the main run loop keeps turning meanwhile, so an object whose last owner is
    /// a main-queue block is seen going (see `MainQueueFriendlyWait`).
    @discardableResult
    public func waitUntilReleased(_ label: String, within timeout: Seconds) -> Bool {
        MainQueueFriendlyWait.until(within: timeout) { !isAlive(label) }
    }

    /// The async form: suspends between checks instead of blocking the thread.
    @discardableResult
    public func waitUntilReleased(_ label: String, within timeout: Seconds) async -> Bool {
        await MainQueueFriendlyWait.until(within: timeout) { !isAlive(label) }
    }

    /// Monotonic release time, when known.
    public func releasedAt(_ label: String) -> Seconds? {
        _ = isAlive(label)
        return entries.withLock { $0[label]?.releasedAt }
    }

    /// Seconds from `markScopeEnd(label)` to release: negative when the object went before its
    /// scope ended, `nil` while alive or without a scope mark.
    public func releaseDelay(_ label: String) -> Seconds? {
        _ = isAlive(label)
        return entries.withLock { entries in
            guard let entry = entries[label], let released = entry.releasedAt, let end = entry.scopeEndedAt else {
                return nil
            }
            return released - end
        }
    }

    /// How many strong references hold the object now, besides any this call makes; `nil` when
    /// it is gone (or tracked by a tag only). See `StrongReferences` for how it is counted.
    public func strongReferences(_ label: String) -> Int? {
        guard let box = entries.withLock({ $0[label]?.box }) else { return nil }
        return StrongReferences.count(of: box)
    }

    /// Where the object tracked as `label` is held, among the objects tracked as `among` that
    /// are still alive (it may be among them: a cycle through itself); see `HolderSearch`.
    /// `nil` when it is gone.
    public func holders(of label: String, among labels: [String]) -> [String]? {
        let boxes = entries.withLock { entries in labels.map { ($0, entries[$0]?.box) } }
        guard let target = entries.withLock({ $0[label]?.box })?.object else { return nil }
        let candidates = boxes.compactMap { label, box in box?.object.map { (label: label, object: $0) } }
        return HolderSearch.holders(of: target, targetLabel: label, among: candidates)
    }

    /// Whether the release time of `label` came from a `LifetimeTag` (exact) or from polling.
    public func releaseTimeIsExact(_ label: String) -> Bool {
        entries.withLock { $0[label]?.exact ?? false }
    }
}

/// Records the moment it is destroyed. Store one in an object (`let tag = tracker.tag("x")`) to
/// learn when that object was released, to the microsecond, without touching its class's
/// `deinit`.
public final class LifetimeTag: Sendable {
    private let onDeinit: @Sendable (Seconds) -> Void

    init(onDeinit: @escaping @Sendable (Seconds) -> Void) {
        self.onDeinit = onDeinit
    }

    deinit { onDeinit(MonotonicClock.now()) }
}
