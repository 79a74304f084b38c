import Synchronization
import LabHarness

/// Something the library or the app says it is doing, as a step of the scenario.
public typealias Narrate = @Sendable (String) -> Void

/// A scenario's steps are events of the trial's one log (`context.event`) whose `thread` reads
/// `queue · thread` (`chat.library · -qos.overcommit #4711`): a completion handler's whole point
/// is *where* it runs. Each step also advances the trial's progress, so the harness sees a
/// scenario that stops taking steps as stalled.
extension VariantContext {
    /// Records `label` at `instant` (default now) in `place` (default where the caller runs).
    func step(_ label: String, at instant: Seconds? = nil, place: ExecutionPlace = .current) {
        event(label, at: instant, thread: "\(place.queue) · \(place.thread)")
        progress.advance()
    }

    /// A narrator for the library and the app that records steps with `prefix` before each label.
    func narrator(_ prefix: String = "") -> Narrate { { [self] label in step(prefix + label) } }

    /// The first step whose label starts with `start`.
    func firstStep(_ start: String) -> TimedEvent? { events.first { $0.label.hasPrefix(start) } }

    /// The queue the first step starting with `start` ran on.
    func queue(of start: String) -> String? {
        firstStep(start)?.thread?.components(separatedBy: " · ").first
    }

    /// `queue (thread)` of the first step starting with `start`, for evidence lines.
    func place(of start: String) -> String {
        guard let place = firstStep(start)?.thread else { return "nowhere (it did not happen)" }
        let parts = place.components(separatedBy: " · ")
        return parts.count == 2 ? "\(parts[0]) (\(parts[1]))" : place
    }

    /// Seconds from the first step starting with `from` to the first starting with `to`.
    func interval(_ from: String, _ to: String) -> Seconds? {
        guard let a = firstStep(from), let b = firstStep(to) else { return nil }
        return b.t - a.t
    }

    /// Waits until `condition` holds, up to the scenario's deadline; on the main thread it
    /// keeps the main run loop (and so the main queue) turning meanwhile.
    func wait(until condition: () -> Bool) -> Bool {
        MainQueueFriendlyWait.until(within: parameters(CallbackParameters.self).deadline, condition)
    }
}

/// A value written on one thread and read on another (a handler's queue, a watcher thread).
final class Shared<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    init(_ initial: Value) { value = Mutex(initial) }
    func get() -> Value { value.withLock { $0 } }
    func set(_ new: Value) { value.withLock { $0 = new } }
    func update<R>(_ change: (inout Value) -> R) -> R { value.withLock { change(&$0) } }
}
