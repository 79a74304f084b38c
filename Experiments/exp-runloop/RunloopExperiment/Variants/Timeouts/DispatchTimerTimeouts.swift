import Dispatch
import Foundation
import LabHarness
import Synchronization

/// `dispatch-timer`: no run loop; one `DispatchSourceTimer` per request, all on one serial
/// queue. libdispatch keeps the timers itself (a heap per clock and quality of service, one
/// kernel timer for the earliest), so this is the heap design done by the system.
public final class DispatchTimerTimeouts: CallbackTimeoutDesign {
    /// One armed timeout: its source, and who got to it first (the timer or a cancel).
    public final class Token: Sendable {
        fileprivate let settled = Atomic<Bool>(false)
        // A dispatch source is thread-safe (cancel may be called from any thread) but not
        // marked Sendable in the overlay.
        fileprivate nonisolated(unsafe) let source: DispatchSourceTimer
        fileprivate init(source: DispatchSourceTimer) { self.source = source }
        fileprivate func settle() -> Bool { !settled.exchange(true, ordering: .acquiringAndReleasing) }
    }

    public init() {}
    private let queue = DispatchQueue(label: "rl.dispatch-timeouts")

    public func arm(at deadline: TimeInterval, onFire: @escaping @Sendable (TimeInterval) -> Void) -> Token {
        // `.strict`: no coalescing with other timers beyond the leeway, which is zero.
        let source = DispatchSource.makeTimerSource(flags: .strict, queue: queue)
        let token = Token(source: source)
        // Both closures are `@Sendable` as Apple's Dispatch declares the handler (Linux's does
        // not), so this compiler checks here what a Mac's would.
        let schedule: @Sendable () -> Void = {
            token.source.schedule(
                deadline: DispatchTimerTimeouts.dispatchTime(for: deadline), repeating: .never, leeway: .nanoseconds(0))
        }
        schedule()
        // The handler holds the token and so the source: an armed source stays alive by itself
        // until it fires or is cancelled, and cancelling releases the handler and the cycle.
        source.setEventHandler { @Sendable in
            let now = MonotonicClock.now()
            if now < deadline {
                // Dispatch's clock and the monotonic clock can disagree by a rounding: never
                // wake a request early, try again for the rest.
                return schedule()
            }
            if token.settle() { onFire(now) }
            token.source.cancel()
        }
        source.activate()
        return token
    }

    @discardableResult
    public func cancel(_ token: Token) -> Bool {
        guard token.settle() else { return false }
        token.source.cancel()
        return true
    }

    /// `deadline` on dispatch's clock, rounded up to the next nanosecond.
    private static func dispatchTime(for deadline: TimeInterval) -> DispatchTime {
        let remaining = max(0, deadline - MonotonicClock.now())
        return .now() + .nanoseconds(Int((remaining * 1e9).rounded(.up)))
    }
}
