import Foundation

/// Something that downloads and calls back: the code under test. `LeakyDownloader` stores a
/// closure that captures itself (a retain cycle); `TidyDownloader` captures itself weakly.
public protocol Downloader: AnyObject {
    func start()
}

public final class LeakyDownloader: Downloader {
    private var onFinish: (() -> Void)?
    public private(set) var finished = false

    public init() {}

    public func start() {
        onFinish = { self.finished = true }  // self keeps the closure, the closure keeps self
    }
}

public final class TidyDownloader: Downloader {
    private var onFinish: (() -> Void)?
    public private(set) var finished = false

    public init() {}

    public func start() {
        onFinish = { [weak self] in self?.finished = true }
    }
}

/// Keeps itself alive for 400 ms after `start()`, through a block scheduled on a global queue:
/// released, but late (a wait of 100 ms misses it; a second look sees it go).
public final class LingeringDownloader: Downloader, Sendable {
    public init() {}

    public func start() {
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(400)) { [self] in
            withExtendedLifetime(self) {}
        }
    }
}

/// Kept alive by a block on a global queue for `delay` seconds after it is made: released, but
/// late by as much as asked.
public final class SlowlyReleased: Sendable {
    public init(after delay: Double) {
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in withExtendedLifetime(self) {} }
    }
}
