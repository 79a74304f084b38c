import Foundation

/// Loads a value and calls back. `SloppyLoader` calls its completion twice when the id is
/// invalid (it reports the error and then falls through to the success path); `CarefulLoader`
/// calls it once on every path.
public enum LoadError: Error, Sendable { case invalidID }

public enum SloppyLoader {
    public static func load(id: Int, completion: @escaping @Sendable (Result<String, LoadError>) -> Void) {
        DispatchQueue.global().async {
            if id < 0 {
                completion(.failure(.invalidID))
                // missing `return`
            }
            completion(.success("item \(id)"))
        }
    }
}

public enum CarefulLoader {
    public static func load(id: Int, completion: @escaping @Sendable (Result<String, LoadError>) -> Void) {
        DispatchQueue.global().async {
            guard id >= 0 else { return completion(.failure(.invalidID)) }
            completion(.success("item \(id)"))
        }
    }
}

/// Delivers its result on the main queue, as UI code does; the presenter is kept alive by the
/// main-queue block until it has run.
public final class MainQueuePresenter: Sendable {
    public init() {}

    public func present(_ completion: @escaping @Sendable (String) -> Void) {
        DispatchQueue.global().async {
            DispatchQueue.main.async { [self] in
                withExtendedLifetime(self) { completion("shown") }
            }
        }
    }
}

/// Two locks taken in opposite orders by two threads: a deadlock, once both hold their first.
public enum LockOrder {
    public static func transferBothWays() {
        let a = NSLock(), b = NSLock()
        let bothHoldOne = DispatchGroup()
        bothHoldOne.enter(); bothHoldOne.enter()
        let done = DispatchGroup()
        for (first, second) in [(a, b), (b, a)] {
            done.enter()
            Thread {
                first.lock()
                bothHoldOne.leave()
                bothHoldOne.wait()
                second.lock()  // never returns: the other thread holds it and waits for ours
                second.unlock(); first.unlock()
                done.leave()
            }.start()
        }
        done.wait()
    }
}

/// A request with a timeout that races its reply. `RacingLoader` calls back when the timeout
/// fires and again when the reply comes `replyDelay` later: the handler is called twice, and a
/// continuation resumed from it traps, after the caller has moved on. `GuardedLoader` lets
/// whichever comes first call back and drops the other.
public final class RacingLoader: Sendable {
    private let replyDelay: Double

    public init(replyDelay: Double) { self.replyDelay = replyDelay }

    public func load(completion: @escaping @Sendable (Result<String, LoadError>) -> Void) {
        completion(.failure(.invalidID))  // the timeout, at once here
        DispatchQueue.global().asyncAfter(deadline: .now() + replyDelay) {
            completion(.success("late reply"))  // the reply: a second call
        }
    }

    public func load() async -> Result<String, LoadError> {
        await withCheckedContinuation { continuation in load { continuation.resume(returning: $0) } }
    }
}

public final class GuardedLoader: Sendable {
    private let replyDelay: Double

    public init(replyDelay: Double) { self.replyDelay = replyDelay }

    public func load(completion: @escaping @Sendable (Result<String, LoadError>) -> Void) {
        let answered = Answered()
        let once: @Sendable (Result<String, LoadError>) -> Void = { result in
            if answered.first() { completion(result) }
        }
        once(.failure(.invalidID))
        DispatchQueue.global().asyncAfter(deadline: .now() + replyDelay) { once(.success("late reply")) }
    }

    public func load() async -> Result<String, LoadError> {
        await withCheckedContinuation { continuation in load { continuation.resume(returning: $0) } }
    }
}
