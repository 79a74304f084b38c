import Foundation

/// Fetches `count` items, each blocking for `latency` seconds (think of a synchronous network
/// call). `HungryFetcher` gives every item a thread of its own; `FrugalFetcher` runs them one
/// after another on a single serial queue.
public enum HungryFetcher {
    public static func fetchAll(count: Int, latency: Double) {
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            let thread = Thread {
                Thread.sleep(forTimeInterval: latency)
                group.leave()
            }
            thread.name = "fetch-\(index)"
            thread.start()
        }
        group.wait()
    }
}

public enum FrugalFetcher {
    public static func fetchAll(count: Int, latency: Double) {
        let queue = DispatchQueue(label: "frugal.fetch")
        for _ in 0..<count {
            queue.sync { Thread.sleep(forTimeInterval: latency / 10) }
        }
    }
}

/// A client that waits for its reply with a timeout, the common form in app code, inside a
/// private method; the reply never comes, so each call waits out its timeout.
public final class PatientClient: Sendable {
    private let timeout: Double

    public init(timeout: Double) { self.timeout = timeout }

    public func request() -> Bool {
        waitForReply()
    }

    private func waitForReply() -> Bool {
        let reply = DispatchGroup()
        reply.enter()  // nobody leaves: no reply
        return reply.wait(timeout: .now() + timeout) == .success  // waits the whole timeout
    }
}

/// A ledger whose update calls back into a method that takes the same lock: a lock taken twice
/// on one thread, which never returns (`NSLock` is not recursive).
public final class ReentrantLedger: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [Int] = []

    public init() {}

    public func record(_ value: Int) {
        lock.lock()  // holds the lock…
        defer { lock.unlock() }
        entries.append(value)
        notifyObservers()
    }

    private func notifyObservers() {
        _ = total()  // …and asks for it again
    }

    fileprivate func total() -> Int {
        lock.lock()
        defer { lock.unlock() }
        return entries.reduce(0, +)
    }
}

/// `ReentrantLedger` fixed: the total is read under the lock already held.
public final class CarefulLedger: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [Int] = []

    public init() {}

    public func record(_ value: Int) {
        lock.lock()
        defer { lock.unlock() }
        entries.append(value)
        _ = entries.reduce(0, +)
    }
}
