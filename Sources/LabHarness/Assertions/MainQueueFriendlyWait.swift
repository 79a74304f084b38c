import Foundation

/// Waiting that never starves the main queue.
///
/// Test frameworks run test bodies on the main thread (XCTest always). Code under test that
/// finishes its work in `DispatchQueue.main.async` needs the main thread's run loop to turn,
/// which it cannot while a helper sleeps or waits on a semaphore there. On the main thread
/// these waits run the main run loop in short slices instead, so main-queue blocks and timers
/// run while the condition is polled; elsewhere they sleep in short slices, and where the main
/// thread is parked for good (Swift Testing on Linux) they run the main run loop from the main
/// queue meanwhile (`MainRunLoopStandIn`), so a timer on `RunLoop.main` fires as under XCTest.
public enum MainQueueFriendlyWait {
    /// Longest slice between two checks of the condition.
    static let slice: Seconds = 0.002

    /// Whether a wait here turns the main run loop: on the main thread, or where the main
    /// thread is parked for good and the wait stands in for it (`MainRunLoopStandIn`).
    static var turnsTheMainRunLoop: Bool { Thread.isMainThread || MainRunLoopStandIn.mainThreadIsParked }

    /// Waits until `condition` holds or `timeout` seconds pass; true when it held.
    @discardableResult
    public static func until(within timeout: Seconds, _ condition: () -> Bool) -> Bool {
        until(deadline: MonotonicClock.now() + timeout, condition)
    }

    /// Waits until `condition` holds or the monotonic clock reaches `deadline`; true when it
    /// held. For waits measured from an instant already past (a block's due time, say).
    @discardableResult
    public static func until(deadline: Seconds, _ condition: () -> Bool) -> Bool {
        while !condition() {
            let left = deadline - MonotonicClock.now()
            if !(left > 0) { return condition() }  // a NaN deadline too: never a wait without end
            pause(upTo: min(left, slice))
        }
        return true
    }

    /// Lets `duration` seconds pass, turning the main run loop meanwhile when on the main thread.
    public static func pass(_ duration: Seconds) {
        pass(until: MonotonicClock.now() + duration)
    }

    /// Lets the monotonic clock reach `deadline`, turning the main run loop meanwhile when on
    /// the main thread.
    public static func pass(until deadline: Seconds) {
        while true {
            let left = deadline - MonotonicClock.now()
            if !(left > 0) { return }
            pause(upTo: min(left, slice))
        }
    }

    /// One slice: the main run loop for at most `seconds` on the main thread (it returns as soon
    /// as it has handled a source, such as a main-queue block), else a plain sleep.
    static func pause(upTo seconds: Seconds) {
        guard Thread.isMainThread else {
            if !MainRunLoopStandIn.turn(for: seconds) { MonotonicClock.sleep(for: seconds) }
            return
        }
        let start = MonotonicClock.now()
        let handled = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: seconds))
        // The run loop returns at once when it has nothing to wait on (inside a main-queue
        // block, for example, where the main queue cannot be drained again): sleep instead of
        // spinning.
        if !handled && MonotonicClock.now() - start < seconds / 4 { MonotonicClock.sleep(for: seconds / 2) }
    }

    /// The async form: polls with `Task.sleep`, which gives the executor back between checks
    /// (so a `@MainActor` test leaves the main actor free for the code it waits for).
    public static func until(within timeout: Seconds, _ condition: () -> Bool) async -> Bool {
        let deadline = MonotonicClock.now() + timeout
        while !condition() {
            let left = deadline - MonotonicClock.now()
            if !(left > 0) { return condition() }
            MainRunLoopStandIn.requestTurn(for: min(left, slice))
            await sleep(for: min(left, slice))
        }
        return true
    }

    /// Suspends for `seconds`, cancelled or not. A cancelled task's `Task.sleep` throws at once,
    /// so a wait built on it alone would spin to its deadline, a core busy and the executor never
    /// given back; the wait still runs its whole budget (cut short, its verdict would be a guess)
    /// and sleeps each slice on a timer of its own.
    static func sleep(for seconds: Seconds) async {
        do { try await Task.sleep(nanoseconds: UInt64(WaitTimeLimit.clamped(seconds) * 1e9)) } catch {
            await withCheckedContinuation { (resume: CheckedContinuation<Void, Never>) in
                cancelledSlices.asyncAfter(deadline: WaitTimeLimit.fromNow(seconds)) { resume.resume() }
            }
        }
    }

    private static let cancelledSlices = DispatchQueue(label: "lab.wait.cancelled-slices")

    /// The async form of `pass(_:)`: lets `duration` seconds pass without blocking the thread,
    /// turning the main run loop meanwhile where the main thread is parked for good (Swift
    /// Testing on Linux), as `until` does, so a `RunLoop.main` timer still fires in the time.
    public static func pass(_ duration: Seconds) async {
        _ = await until(within: duration) { false }
    }
}
