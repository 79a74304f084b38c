import Dispatch
import Foundation
import Synchronization

/// Trials that mostly wait (a child waiting out its budget, a hung test waiting for its
/// timeout), started together, each on a thread of its own, so that their waits overlap and the
/// suite pays for the longest instead of the sum. Keep trials that measure CPU or timing out of
/// it: on two cores they would slow each other.
///
/// `start` returns at once; `results` waits for every trial and gives each one's value, or its
/// error as a line that names the trial.
public final class SideBySide<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// A trial that threw: `which` and what it threw.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    private let done = DispatchGroup()
    private let made = Mutex<[Key: Result<Value, Failure>]>([:])

    /// Starts `trial` once for each of `keys`.
    public init(_ keys: [Key], _ trial: @escaping @Sendable (Key) throws -> Value) {
        for key in keys {
            done.enter()
            Thread.detachNewThread { [self] in
                defer { done.leave() }
                let result = Result { try trial(key) }.mapError { Failure(description: "\(key): \($0)") }
                made.withLock { $0[key] = result }
            }
        }
    }

    /// Every trial's result, once all have ended.
    public var results: [Key: Result<Value, Failure>] {
        done.wait()
        return made.withLock { $0 }
    }

    /// The value of `key`'s trial, once all have ended; throws what it threw, or that it did
    /// not run.
    public func value(_ key: Key) throws -> Value {
        guard let result = results[key] else { throw Failure(description: "\(key) did not run") }
        return try result.get()
    }
}

extension SideBySide {
    /// Trials that a test class's tests each check one of: the first test to read one starts
    /// them all (any test may run first, or alone under `--filter`), the others read theirs.
    public final class OnFirstRead: Sendable {
        private let started = Mutex<SideBySide?>(nil)

        public init() {}

        /// `key`'s value; the first call starts `trial` for each of `keys`.
        public func value(_ key: Key, of keys: [Key], _ trial: @escaping @Sendable (Key) throws -> Value) throws
            -> Value
        {
            let runs = started.withLock { started in
                if let started { return started }
                let made = SideBySide(keys, trial)
                started = made
                return made
            }
            return try runs.value(key)
        }
    }
}
