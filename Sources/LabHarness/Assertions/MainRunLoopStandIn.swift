import CLabSupport
import CoreFoundation
import Foundation

/// Turns the main thread's run loop, on the main queue, while a helper waits in a process whose
/// main thread will never turn it: Swift Testing on Linux.
///
/// There the test binary's entry point is async (`_runAsyncMain`), and the Swift runtime's
/// main-queue drain ends in `dispatch_main` (Swift 6.3.1: `MainActor.executor` is a
/// `DispatchMainExecutor`, whose `run()` calls it; no `CFRunLoopRun` is looked up on Linux).
/// libdispatch then parks the main thread in `sigsuspend` after `pthread_exit`, for good, and
/// worker threads drain the main queue; `RunLoop.main` is still the main thread's run loop
/// (`CFRunLoopGetMain`), which nothing runs, so a `Timer` or `perform` put there never fires.
/// XCTest runs tests on the main thread, and the helpers' waits run that run loop in 2 ms
/// slices. Here the waits run it in the same slices, from a main-queue block (the main actor's
/// executor), with CoreFoundation's `CFRunLoopRunSpecific`, which runs a given run loop on the
/// calling thread: a timer fires on the main queue, serialized with main-queue blocks and the
/// main actor as on a Mac, but on a worker thread (`Thread.isMainThread` is false there, as for
/// every main-queue block under Swift Testing on Linux). Only when the main thread is seen
/// parked, so no two threads ever run that run loop at once; never under XCTest or on a Mac,
/// where Swift Testing's main executor runs it on the main thread.
enum MainRunLoopStandIn {
    /// A turn queued on the main queue and not yet run (one at a time: a blocked main queue
    /// must not pile them up).
    private static let queued = Shared(false)
    /// Once seen parked, the main thread never comes back (`dispatch_main` does not return).
    private static let seenParked = Shared(false)

    /// Whether this process's main thread is parked for good, so nothing runs its run loop.
    static var mainThreadIsParked: Bool {
        if seenParked.get() { return true }
        guard clab_main_thread_parked() == 1 else { return false }
        seenParked.set(true)
        return true
    }

    /// Why the harness cannot stand in where it should; `nil` when it can or need not.
    static var unavailableReason: String? {
        guard !canRun, mainThreadIsParked else { return nil }
        return "this process's main thread is parked in dispatch_main (as under Swift Testing on Linux), and"
            + " CoreFoundation's CFRunLoopRunSpecific, with which the helpers' waits run the main run loop there,"
            + " was not found"
    }

    private static let canRun: Bool = clab_run_loop_run_specific_available() == 1

    /// One slice of a synchronous wait off the main thread: when the main thread is parked,
    /// turns the main run loop on the main queue for up to `seconds` (right here when the caller
    /// is on the main queue) and returns true; false when the caller should just sleep.
    static func turn(for seconds: Seconds) -> Bool {
        guard mainThreadIsParked, canRun else { return false }
        if MainQueueMark.isOnMainQueue {
            runSlice(seconds, sleepingIfIdle: true)
            return true
        }
        let start = MonotonicClock.now()
        let done = DispatchSemaphore(value: 0)
        guard enqueueSlice(seconds, then: { done.signal() }) else { return false }
        // A main queue held by the code under test runs the turn later; the wait does not.
        _ = done.wait(timeout: .now() + seconds)
        let left = seconds - (MonotonicClock.now() - start)
        if left > 0 { MonotonicClock.sleep(for: left) }  // an idle run loop returns at once: no spin
        return true
    }

    /// For an async wait: queues one turn of at most `seconds` on the main queue, unless one is
    /// queued already; returns at once (the caller sleeps its slice, suspended).
    static func requestTurn(for seconds: Seconds) {
        guard mainThreadIsParked, canRun else { return }
        _ = enqueueSlice(seconds, then: {})
    }

    private static func enqueueSlice(_ seconds: Seconds, then finished: @escaping @Sendable () -> Void) -> Bool {
        guard
            queued.update({ busy in
                defer { busy = true }; return !busy
            })
        else { return false }
        DispatchQueue.main.async {
            runSlice(seconds, sleepingIfIdle: false)
            queued.set(false)
            finished()
        }
        return true
    }

    /// Runs the main run loop's default mode for at most `seconds`, returning after one source
    /// or timer. An idle mode (no timer or source) returns at once; a caller that asked sleeps
    /// the slice then, rather than spin.
    private static func runSlice(_ seconds: Seconds, sleepingIfIdle: Bool) {
        let mainLoop = Unmanaged.passUnretained(CFRunLoopGetMain() as AnyObject).toOpaque()
        let mode = Unmanaged.passUnretained(HostPlatform.defaultRunLoopMode).toOpaque()
        let result = clab_run_loop_run_specific(mainLoop, mode, seconds)
        if result == 1 && sleepingIfIdle { MonotonicClock.sleep(for: seconds) }
    }
}
