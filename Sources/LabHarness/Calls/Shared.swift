import Synchronization

/// A value written on one thread and read on another (a handler's queue, a watcher thread):
/// a `Mutex` with the three uses a trial needs, so a body does not spell out `withLock` for a
/// single flag or count.
public final class Shared<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    public init(_ initial: Value) { value = Mutex(initial) }
    public func get() -> Value { value.withLock { $0 } }
    public func set(_ new: Value) { value.withLock { $0 = new } }
    public func update<R>(_ change: (inout Value) -> R) -> R { value.withLock { change(&$0) } }
}
