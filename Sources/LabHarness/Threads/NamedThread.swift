import CLabSupport
import Foundation
import Synchronization

/// Starts `Thread`s whose names the kernel (and so `/proc`, `top -H`, gdb and `ThreadCensus`)
/// can see.
///
/// Measured on Linux with swift-corelibs-foundation (Swift 6.3.1): a `Thread.name` set before
/// `start()` stays on the `Thread` object and never reaches the kernel (`comm` keeps the
/// process's name), and setting `Thread.current.name` from inside the new thread reached the
/// kernel only most of the time (3 of 4 threads under load). So the thread names itself
/// through `pthread_setname_np` first thing, which is what the kernel keeps (at most 15 bytes:
/// a longer name is refused and the old one stays).
public enum NamedThread {
    /// Starts a thread named `name` running `body`.
    @discardableResult
    public static func start(_ name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) -> Thread {
        let thread = Thread {
            nameCurrentThread(name)
            body()
        }
        thread.name = name
        if let stackSize { thread.stackSize = stackSize }
        thread.start()
        return thread
    }

    /// Starts a thread named `name` and waits until its `body` calls `start.signalReady()`
    /// (once it has set up what its starter needs). Returns `false` instead of waiting on when
    /// the thread is not ready within `budget` seconds, or sooner when a thread creation failed
    /// meanwhile (`pthread_create` refused: a thread limit) and it did not turn up within a
    /// grace after that: Foundation's `Thread.start` reports no failure, and an unbounded wait
    /// here hung under `ulimit -u 40` until the trial's budget, 45 s later. A thread given up
    /// on may still start later: `signalReady` then publishes nothing, returns `false`, and
    /// `body` should end.
    @discardableResult
    public static func startAndAwait(
        _ name: String, stackSize: Int? = nil, budget: Seconds = startBudget,
        _ body: @escaping @Sendable (_ start: Start) -> Void
    ) -> Bool {
        let failuresBefore = clab_thread_create_failures()
        let start = Start()
        self.start(name, stackSize: stackSize) { body(start) }
        let deadline = MonotonicClock.now() + budget
        var failedAt: Seconds?
        while start.ready.wait(timeout: .now() + .milliseconds(10)) == .timedOut {
            let now = MonotonicClock.now()
            if failedAt == nil, failuresBefore >= 0, clab_thread_create_failures() > failuresBefore { failedAt = now }
            if now >= deadline || failedAt.map({ now - $0 >= failureGrace }) == true { return start.giveUp() }
        }
        return true
    }

    /// How long `startAndAwait` waits for a thread by default: a machine that gives a new
    /// thread no CPU for this long leaves the trial nothing to judge anyway.
    public static let startBudget: Seconds = 10
    /// How long a thread may still turn up after a creation failed (someone else's, perhaps).
    static let failureGrace: Seconds = 0.25

    /// What a `startAndAwait` thread and its starter share: whether it became ready first or
    /// the starter gave up first.
    public final class Start: Sendable {
        fileprivate let ready = DispatchSemaphore(value: 0)
        private enum Phase { case waiting, ready, givenUp }
        private let phase = Mutex(Phase.waiting)

        /// Tells the starter the thread is ready; `false` when the starter had given up on it.
        /// `publish` (what the starter reads once ready) runs only if it has not: a thread that
        /// turns up late never overwrites what the starter set up without it.
        @discardableResult
        public func signalReady(publishing publish: () -> Void = {}) -> Bool {
            let first = phase.withLock { p -> Bool in
                guard p == .waiting else { return false }
                publish()
                p = .ready
                return true
            }
            if first { ready.signal() }
            return first
        }

        /// Gives up, unless the thread became ready just now: `true` then.
        fileprivate func giveUp() -> Bool {
            phase.withLock { p -> Bool in
                if p == .ready { return true }
                p = .givenUp
                return false
            }
        }
    }

    /// Names the calling thread, for the kernel and for Foundation. Returns false when the
    /// kernel refused the name (over 15 bytes on Linux).
    @discardableResult
    static func nameCurrentThread(_ name: String) -> Bool {
        Thread.current.name = name
        return clab_set_current_thread_name(name) == 0
    }
}
