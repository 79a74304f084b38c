import Foundation

/// A reminder delivered by a `Timer` on the main run loop, as app code schedules UI work.
public final class MainRunLoopReminder: Sendable {
    public init() {}

    /// Buggy: the timer is made but never added to a run loop, so it never fires.
    public func remindForgettingToSchedule(
        after delay: TimeInterval, _ completion: @escaping @Sendable (String) -> Void
    ) {
        let timer = Timer(fire: Date(timeIntervalSinceNow: delay), interval: 0, repeats: false) { _ in
            completion("reminded")
        }
        _ = timer
    }

    /// Buggy: answers at once from what it last knew, and again when its timer fires: the
    /// completion runs twice.
    public func remindAnsweringEarly(after delay: TimeInterval, _ completion: @escaping @Sendable (String) -> Void) {
        completion("reminded earlier")
        remind(after: delay, completion)
    }

    /// Fixed: added to `RunLoop.main` in the common modes.
    public func remind(after delay: TimeInterval, _ completion: @escaping @Sendable (String) -> Void) {
        let timer = Timer(fire: Date(timeIntervalSinceNow: delay), interval: 0, repeats: false) { _ in
            completion("reminded")
        }
        RunLoop.main.add(timer, forMode: .common)
    }
}
