import Foundation
import LabHarness
import Synchronization

/// `shared-thread` seen through the timeout-design interface: the existing shared run-loop
/// thread, one run-loop `Timer` per request. It keeps no reference to the timers it adds, so a
/// timeout cannot be taken back: a request that completes first leaves its timer to fire
/// later, and the race ignores it.
public final class SharedThreadTimeouts: CallbackTimeoutDesign {
    public typealias Token = Void
    private let thread: SharedRunLoopThread, priority: PriorityAnswer
    private let armed = Atomic<Int>(0)
    /// Run-loop timers added so far: one per request.
    public var timersArmed: Int? { armed.load(ordering: .relaxed) }
    public var threadPriority: (granted: Bool, text: String)? { priority.value }

    private init(thread: SharedRunLoopThread, priority: PriorityAnswer) {
        (self.thread, self.priority) = (thread, priority)
    }
    /// Starts the thread; with `realtime` it asks for real-time priority first.
    public static func start(realtime: Bool) -> SharedThreadTimeouts? {
        let priority = PriorityAnswer()
        return SharedRunLoopThread.start(prepare: { priority.ask(if: realtime) }).map {
            SharedThreadTimeouts(thread: $0, priority: priority)
        }
    }

    public func arm(at deadline: TimeInterval, onFire: @escaping @Sendable (TimeInterval) -> Void) {
        thread.schedule(
            at: deadline, onArmed: { self.armed.wrappingAdd(1, ordering: .relaxed) },
            onFire: { onFire(MonotonicClock.now()) })
    }

    @discardableResult public func cancel(_ token: Void) -> Bool { false }
    public func stop() { thread.stop() }
}
