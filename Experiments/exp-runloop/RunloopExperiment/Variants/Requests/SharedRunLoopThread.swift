import CoreFoundation
import Foundation
import LabHarness
import Synchronization

/// One long-lived thread whose run loop serves every request's timer, as AFNetworking 2.x kept
/// a single network thread alive with a port and `[runLoop run]`.
///
/// Requests do not block this thread: each one adds a timer to its run loop (from any thread,
/// through `CFRunLoopPerformBlock`) and the timer's block tells the request's caller. So the
/// cost is one thread, whatever the number of requests in flight. `deadline-heap` runs its one
/// timer on the same kind of thread.
final class SharedRunLoopThread: Sendable {
    private let exited = DispatchSemaphore(value: 0)
    private let stopping = Atomic<Bool>(false)
    private let handle = Mutex<RunLoopHandle?>(nil)

    /// Starts the thread and returns once its run loop exists (`nil`: it could not get a source,
    /// or the thread did not start).
    /// `source` runs on the thread first: it gives the run loop something to wait on (without
    /// one, `run(mode:before:)` returns at once and the loop spins) and returns what undoes it.
    /// `prepare` runs on the thread before anything else (a design asks for real-time priority
    /// there); `gauge` counts the thread while its loop runs.
    static func start(
        name: String = "rl.shared", gauge: PeakGauge? = nil, prepare: @escaping @Sendable () -> Void = {},
        source: @escaping @Sendable (RunLoop) -> (() -> Void)? = port
    ) -> SharedRunLoopThread? {
        let thread = SharedRunLoopThread()
        return thread.start(name: name, gauge: gauge, prepare: prepare, source: source) ? thread : nil
    }

    func start(
        name: String, gauge: PeakGauge? = nil, prepare: @escaping @Sendable () -> Void = {},
        source: @escaping @Sendable (RunLoop) -> (() -> Void)?
    ) -> Bool {
        let ready = NamedThread.startAndAwait(name) { [self] start in
            prepare()
            guard let undo = source(RunLoop.current) else { start.signalReady(); return }
            // Not ready when the starter has given up on the thread: undo and end.
            guard start.signalReady(publishing: { handle.withLock { $0 = .current } }) else { undo(); return }
            gauge?.enter()
            // A loop with a flag rather than `run()`: `run()` would ignore `CFRunLoopStop`.
            while !isStopping { _ = RunLoop.current.run(mode: .default, before: .distantFuture) }
            gauge?.leave()
            undo()
            exited.signal()
        }
        return ready && handle.withLock { $0 } != nil
    }

    /// The default source: a port, which keeps the run loop asleep between timers.
    static func port(_ runLoop: RunLoop) -> (() -> Void)? {
        guard let port = SocketPort(tcpPort: 0) else { return nil }
        runLoop.add(port, forMode: .default)
        return {
            runLoop.remove(port, forMode: .default); port.invalidate()
        }
    }

    var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// Runs `block` on the thread's next pass, and wakes it so that the pass is now.
    func perform(_ block: @escaping @Sendable () -> Void) {
        guard let handle = handle.withLock({ $0 }) else { return }
        handle.runLoop.perform(inModes: [.default], block: block)
        CFRunLoopWakeUp(handle.cf)
    }

    /// Arms a one-shot timer on the shared run loop for the monotonic instant `deadline` (not
    /// "interval from whenever the thread gets to it", so the hop does not push the timeout
    /// back); `onFire` runs on the shared thread. Callable from any thread.
    func schedule(
        at deadline: TimeInterval, onArmed: @escaping @Sendable () -> Void, onFire: @escaping @Sendable () -> Void
    ) {
        perform {
            let timer = Timer(
                fire: Date(timeIntervalSinceNow: deadline - MonotonicClock.now()), interval: 0, repeats: false
            ) { _ in onFire() }
            RunLoop.current.add(timer, forMode: .default)
            onArmed()
        }
    }

    /// Ends the thread (waits two seconds at most).
    func stop() {
        guard let cf = handle.withLock({ $0?.cf }) else { return }
        stopping.store(true, ordering: .releasing)
        CFRunLoopStop(cf)
        CFRunLoopWakeUp(cf)
        _ = exited.wait(timeout: .now() + .seconds(2))
    }
}
