import Foundation
import Synchronization
import CLabSupport

/// Counts the calls of a callback and remembers when and on which thread each came.
///
/// Hand `probe.callback` (or `probe.record(_:)`) to the code under test, then ask how many
/// calls arrived. For the contract "exactly once": `probe.waitForCall(within:)`, then
/// `probe.settle(for:)` to give a stray second call its chance to show.
public final class CallProbe<Value: Sendable>: Sendable {
    public struct Call: Sendable {
        /// Monotonic time of the call.
        public var at: Seconds
        /// The calling thread's name (`main` for the main thread; empty if unnamed).
        public var thread: String
        public var isMainThread: Bool
        /// Whether the call ran as part of the main queue (a block of it, or of a queue that
        /// targets it), whichever thread drained it: on Linux under Swift Testing a dispatch
        /// worker drains the main queue, and `isMainThread` is false there.
        public var isOnMainQueue: Bool = false
        public var value: Value
    }

    private let calls = Mutex<[Call]>([])
    private let arrived = DispatchSemaphore(value: 0)

    public init() {}

    /// Records one call with its value.
    public func record(_ value: Value) {
        let call = Call(
            at: MonotonicClock.now(), thread: CurrentThread.name, isMainThread: Thread.isMainThread,
            isOnMainQueue: MainQueueMark.isOnMainQueue, value: value)
        calls.withLock { $0.append(call) }
        arrived.signal()
    }

    /// A closure that records each call; pass it where a completion handler is expected.
    public var callback: @Sendable (Value) -> Void { { [self] value in record(value) } }

    public var count: Int { calls.withLock { $0.count } }
    public var all: [Call] { calls.withLock { $0 } }
    public var first: Call? { calls.withLock { $0.first } }

    /// Waits until at least one call has arrived, up to `timeout` seconds; true if one did. On
    /// the main thread the main run loop turns meanwhile, so a callback delivered with
    /// `DispatchQueue.main.async` arrives, and where the main thread is parked for good (Swift
    /// Testing on Linux) the wait runs the main run loop itself (see `MainQueueFriendlyWait`).
    @discardableResult
    public func waitForCall(within timeout: Seconds) -> Bool {
        if count > 0 { return true }
        if MainQueueFriendlyWait.turnsTheMainRunLoop {
            return MainQueueFriendlyWait.until(within: timeout) { count > 0 }
        }
        let deadline = MonotonicClock.now() + timeout
        while count == 0 {
            let left = deadline - MonotonicClock.now()
            if !(left > 0) { return false }
            _ = arrived.wait(timeout: WaitTimeLimit.fromNow(max(0.001, min(left, 0.05))))
        }
        return true
    }

    /// The async form: suspends between checks instead of blocking the thread.
    @discardableResult
    public func waitForCall(within timeout: Seconds) async -> Bool {
        await MainQueueFriendlyWait.until(within: timeout) { count > 0 }
    }

    /// Waits `duration` seconds so that late extra calls are counted (turning the main run loop
    /// when on the main thread, so late calls delivered on the main queue are counted too).
    public func settle(for duration: Seconds) {
        MainQueueFriendlyWait.pass(duration)
    }
}

extension CallProbe where Value == Void {
    public func record() { record(()) }
}

/// Tells whether code runs on the main queue, whichever thread drains it: a queue-specific
/// value set on `DispatchQueue.main` (once, on first use) and read with
/// `DispatchQueue.getSpecific`, which sees a queue's own values and its targets'.
enum MainQueueMark {
    private static let key = DispatchSpecificKey<Bool>()
    private static let marked: Bool = {
        DispatchQueue.main.setSpecific(key: key, value: true)
        return true
    }()

    /// Whether the caller runs on the main queue (or a queue that targets it).
    static var isOnMainQueue: Bool {
        _ = marked
        return DispatchQueue.getSpecific(key: key) == true
    }

    /// Marks the main queue now, before any callback can run (the assertions call it first).
    static func prepare() { _ = marked }
}

/// The calling thread as reports describe it.
enum CurrentThread {
    /// `main` on the main thread, else the thread's name, else `tid N` from the kernel.
    static var name: String {
        if Thread.isMainThread { return "main" }
        if let n = Thread.current.name, !n.isEmpty { return n }
        var buffer = [CChar](repeating: 0, count: 64)
        if clab_current_thread_name(&buffer, UInt(buffer.count)) == 0 {
            let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !name.isEmpty { return name }
        }
        return "unnamed"
    }
}
