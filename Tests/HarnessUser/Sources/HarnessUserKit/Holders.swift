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

/// Breaks the closure cycle with `[unowned self]`, as it should, but a cache the caller never
/// sees keeps it: the closure is not what holds it.
public final class UnownedCachedDownloader: @unchecked Sendable {
    nonisolated(unsafe) private static var cache: [UnownedCachedDownloader] = []
    private static let lock = NSLock()
    private var onFinish: (() -> Void)?
    public private(set) var finished = false
    public init() {}
    public func start() {
        onFinish = { [unowned self] in self.finished = true }
        Self.lock.withLock { Self.cache.append(self) }
    }
}

/// A tree whose child points back at its parent `unowned`, as it should; the parent is kept by
/// a registry the caller never sees.
public final class TreeParent: @unchecked Sendable {
    nonisolated(unsafe) private static var registry: [TreeParent] = []
    private static let lock = NSLock()
    public private(set) var child: TreeChild?
    public init() {}
    public func register() {
        child = TreeChild(parent: self)
        Self.lock.withLock { Self.registry.append(self) }
    }
}

public final class TreeChild: @unchecked Sendable {
    public unowned let parent: TreeParent
    public init(parent: TreeParent) { self.parent = parent }
}

/// A player whose stored closure captures its session, which points back at the player
/// `unowned(unsafe)`; a registry the caller never sees keeps the player.
public final class RegisteredPlayer: @unchecked Sendable {
    nonisolated(unsafe) private static var registry: [RegisteredPlayer] = []
    private static let lock = NSLock()
    private var onEnd: (() -> Void)?
    public init() {}
    public func start() {
        let session = PlayerSession(owner: self)
        onEnd = { session.ended = true }
        Self.lock.withLock { Self.registry.append(self) }
    }
}

public final class PlayerSession: @unchecked Sendable {
    public unowned(unsafe) var owner: RegisteredPlayer
    public var ended = false
    public init(owner: RegisteredPlayer) { self.owner = owner }
}

/// Stores a `@Sendable` closure that captures itself: a retain cycle.
public final class SendableTicker: @unchecked Sendable {
    private var onTick: (@Sendable () -> Void)?
    public init() {}
    public func start() { onTick = { _ = self } }
}

/// Stores a `@MainActor @Sendable` closure that captures itself: a retain cycle.
public final class MainActorTicker: @unchecked Sendable {
    private var onTick: (@MainActor @Sendable () -> Void)?
    public init() {}
    public func start() { onTick = { @MainActor in _ = self } }
}

/// Keeps its observers in an array of closures, one of which captures itself: a retain cycle.
public final class ObservedStore: @unchecked Sendable {
    private var observers: [() -> Void] = []
    public private(set) var changes = 0
    public init() {}
    public func start() {
        observers.append { print("changed") }
        observers.append { self.changes += 1 }
    }
}
