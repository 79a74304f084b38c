import CoreFoundation
import Foundation
import LabHarness
import Synchronization

/// One long-lived thread whose run loop serves every request's timer, as AFNetworking 2.x kept
/// a single network thread alive with a port and `[runLoop run]`.
///
/// Requests do not block this thread: each one adds a timer to its run loop (from any thread,
/// through `CFRunLoopPerformBlock`) and the timer's block tells the request's caller. So the
/// cost is one thread, whatever the number of requests in flight.
final class SharedRunLoopThread: Sendable {
    /// What the thread and its owner share.
    private final class State: Sendable {
        let ready = DispatchSemaphore(value: 0)
        let exited = DispatchSemaphore(value: 0)
        let stopping = Atomic<Bool>(false)
        let handle = Mutex<RunLoopHandle?>(nil)
        let grant = Mutex<RealtimePriority.Grant?>(nil)
    }

    private let state: State
    private let handle: RunLoopHandle

    private init(state: State, handle: RunLoopHandle) {
        self.state = state
        self.handle = handle
    }

    /// Starts the thread and returns once its run loop exists; `nil` if no port could be made.
    /// With `realtime`, the thread first asks for real-time priority (`RealtimePriority`);
    /// `priority` then says what the scheduler answered.
    static func start(name: String = "rl.shared", gauge: PeakGauge, realtime: Bool = false) -> SharedRunLoopThread? {
        let state = State()
        NamedThread.start(name) {
            if realtime {
                let answer = RealtimePriority.requestForCurrentThread()
                state.grant.withLock { $0 = answer }
            }
            // The port keeps the run loop alive between timers; without a source,
            // `run(mode:before:)` would return at once and this loop would spin.
            guard let port = SocketPort(tcpPort: 0) else { state.ready.signal(); return }
            RunLoop.current.add(port, forMode: .default)
            state.handle.withLock { $0 = .current }
            gauge.enter()
            state.ready.signal()
            // A loop with a flag rather than `run()`: `run()` would ignore `CFRunLoopStop`.
            while !state.stopping.load(ordering: .acquiring) {
                _ = RunLoop.current.run(mode: .default, before: .distantFuture)
            }
            gauge.leave()
            RunLoop.current.remove(port, forMode: .default)
            port.invalidate()
            state.exited.signal()
        }
        state.ready.wait()
        guard let handle = state.handle.withLock({ $0 }) else { return nil }
        return SharedRunLoopThread(state: state, handle: handle)
    }

    /// The scheduler's answer when the thread was started with `realtime`; `nil` otherwise.
    var priority: RealtimePriority.Grant? { state.grant.withLock { $0 } }

    /// Arms a one-shot timer on the shared run loop for the monotonic instant `deadline`;
    /// `onFire` runs on the shared thread. Callable from any thread.
    ///
    /// The timer is set for the request's deadline, not for "interval from whenever the shared
    /// thread gets to it", so the hop to the shared thread does not push the timeout back.
    func schedule(at deadline: Seconds, onArmed: @escaping @Sendable () -> Void,
                  onFire: @escaping @Sendable () -> Void) {
        CFRunLoopPerformBlock(handle.cf, SharedRunLoopThread.defaultMode) {
            let fireDate = Date(timeIntervalSinceNow: deadline - MonotonicClock.now())
            let timer = Timer(fire: fireDate, interval: 0, repeats: false) { _ in onFire() }
            RunLoop.current.add(timer, forMode: .default)
            onArmed()
        }
        // A performed block waits for the loop's next pass; wake it so the timer is armed now.
        CFRunLoopWakeUp(handle.cf)
    }

    /// The default mode as `CFRunLoopPerformBlock` takes it (it differs between platforms).
    private static var defaultMode: CFTypeRef { HostPlatform.defaultRunLoopMode }

    /// Ends the thread (waits a second at most).
    func stop() {
        state.stopping.store(true, ordering: .releasing)
        CFRunLoopStop(handle.cf)
        _ = state.exited.wait(timeout: .now() + .seconds(1))
    }
}
