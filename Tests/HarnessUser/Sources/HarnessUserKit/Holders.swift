import Foundation
import Synchronization

/// A screen and its session that keep each other: the controller stores its session, and the
/// session stores the controller as a strong `delegate` (it should be `weak`).
public final class ScreenController: @unchecked Sendable {
    public var session: ScreenSession?
    public init() {}
    public func open() {
        let session = ScreenSession()
        session.delegate = self
        self.session = session
    }
}

public final class ScreenSession: @unchecked Sendable {
    public var delegate: ScreenController?
    public init() {}
}

/// Kept for ever by a cache the caller never sees: the harness cannot say who holds it.
public final class CachedDownloader: Sendable {
    private static let cache = Mutex<[CachedDownloader]>([])
    public init() {}
    public func start() { Self.cache.withLock { $0.append(self) } }
}

/// Keeps itself alive for `delay` seconds after `start()` through a scheduled block: released,
/// but late.
public final class SlowlyReleasedDownloader: Sendable {
    private let delay: Double
    public init(delay: Double) { self.delay = delay }
    public func start() {
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { withExtendedLifetime(self) {} }
    }
}
