import Foundation

/// Two accounts whose transfers take the two locks in opposite orders: run both ways at once
/// and each thread holds the lock the other waits for. A classic lock-order deadlock.
public final class Ledger: @unchecked Sendable {
    private let first = NSLock()
    private let second = NSLock()

    public init() {}

    /// Never returns: two threads each hold one lock and wait for the other, and the caller
    /// waits for both threads.
    public func transferBothWays() {
        let bothHold = DispatchGroup()
        bothHold.enter()
        bothHold.enter()
        let done = DispatchGroup()
        for forward in [true, false] {
            done.enter()
            Thread.detachNewThread { [self] in
                let (a, b) = forward ? (first, second) : (second, first)
                a.lock()
                bothHold.leave()
                bothHold.wait()
                b.lock()  // the other thread holds it, and waits for ours
                b.unlock()
                a.unlock()
                done.leave()
            }
        }
        done.wait()
    }
}

/// Burns a CPU forever: output stops, the CPU does not.
public enum Spinner {
    public static func spinForever() -> Int {
        var counter = 0
        while counter >= 0 { counter = (counter &+ 1) & 0x3fff_ffff }
        return counter
    }
}

/// Ends the test process with a trap.
public enum Crasher {
    public static func trap(_ reason: String) -> Never {
        fatalError(reason)
    }
}
