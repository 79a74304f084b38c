import Dispatch

/// A save whose completion takes no value.
public enum Savers {
    /// Fixed: calls back once, from a queue of its own.
    public static func save(then done: @escaping @Sendable () -> Void) {
        DispatchQueue.global().async { done() }
    }

    /// Buggy: a retry path calls back a second time, 50 ms later.
    public static func saveRetrying(then done: @escaping @Sendable () -> Void) {
        DispatchQueue.global().async {
            done()
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) { done() }  // the bug
        }
    }
}
