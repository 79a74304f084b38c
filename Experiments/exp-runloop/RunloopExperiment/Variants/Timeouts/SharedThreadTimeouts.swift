import LabHarness
import Synchronization

/// `shared-thread` seen through the timeout-design interface: the existing shared run-loop
/// thread, one run-loop `Timer` per request. It keeps no reference to the timers it adds, so a
/// timeout cannot be taken back: a request that completes first leaves its timer to fire
/// later, and the race ignores it.
public final class SharedThreadTimeouts: CallbackTimeoutDesign {
    public typealias Token = Void
    private let thread: SharedRunLoopThread
    private let armed = Atomic<Int>(0)
    /// Run-loop timers added so far: one per request.
    public var timersArmed: Int? { armed.load(ordering: .relaxed) }
    public var threadPriority: RealtimePriority.Grant? { thread.priority }

    private init(thread: SharedRunLoopThread) { self.thread = thread }
    /// Starts the thread; with `realtime` it asks for real-time priority first.
    public static func start(realtime: Bool) -> SharedThreadTimeouts? {
        SharedRunLoopThread.start(realtime: realtime).map(SharedThreadTimeouts.init)
    }

    public func arm(at deadline: Seconds, onFire: @escaping @Sendable (Seconds) -> Void) {
        thread.schedule(
            at: deadline, onArmed: { self.armed.wrappingAdd(1, ordering: .relaxed) },
            onFire: { onFire(MonotonicClock.now()) })
    }

    @discardableResult public func cancel(_ token: Void) -> Bool { false }
    public func stop() { thread.stop() }
}
