import Foundation

// The types the README's examples test, written as a library author's code would be (the
// correct versions): the examples themselves are in the test targets, word for word.

/// Stores closures that capture itself weakly, and schedules work.
public final class Controller: Sendable {
    private let tasks = Slot()
    public init() {}
    public func start() {
        DispatchQueue.global().async { [weak self] in self?.tasks.set("started") }
    }
    public func started() -> Controller {
        start()
        return self
    }
}

/// Keeps its handler weakly.
public final class Session: Sendable {
    private let state = Slot()
    public init() {}
    public func start() {
        DispatchQueue.global().async { [weak self] in self?.state.set("running") }
    }
}

public enum ClientError: Error { case empty }

/// A client with a synchronous fetch (delivered on a queue of its own, so it returns on the
/// main thread too), a batch sender on one serial queue, and a download that completes on the
/// main queue.
public final class Client: Sendable {
    public init() {}

    public func fetchSynchronously() throws -> Data {
        let text = QueueFetcher().fetchSynchronously()
        guard !text.isEmpty else { throw ClientError.empty }
        return Data(text.utf8)
    }

    public func sendAll(count: Int) {
        let queue = DispatchQueue(label: "client.send")
        for _ in 0..<count { queue.async {} }
        queue.sync {}
    }

    public func download(completion: @escaping @Sendable (Result<Data, Error>) -> Void) {
        DispatchQueue.global().async {
            DispatchQueue.main.async { completion(.success(Data("downloaded".utf8))) }
        }
    }
}

/// Two accounts locked in opposite orders by two transfers: a deadlock.
public final class Ledger: Sendable {
    public init() {}
    public func transferBothWays() { LockOrder.transferBothWays() }
}

/// Traps on input it cannot read.
public struct Parser: Sendable {
    public init() {}
    public func parse(_ text: String) -> Int {
        guard let value = Int(text) else { preconditionFailure("not a number: \(text)") }
        return value
    }
}

/// Input the parser traps on.
public let badInput = "twelve"

/// A `@MainActor` view model whose `refresh()` schedules a main-actor task that holds it
/// briefly.
@MainActor public final class Model {
    public private(set) var refreshed = false
    public init() {}
    public func refresh() {
        Task { @MainActor in self.refreshed = true }
    }
}
