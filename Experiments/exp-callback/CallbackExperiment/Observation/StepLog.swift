import Foundation
import LabHarness
import Synchronization

/// One thing that happened during a scenario, when, and where it ran.
public struct Step: Sendable, Equatable {
    /// Seconds since the scenario started.
    public var t: Seconds
    public var label: String
    public var place: ExecutionPlace
}

/// The ordered record of a scenario's steps, written from any thread.
///
/// Every step also advances the trial's progress counter, so the harness sees a scenario that
/// stops taking steps as stalled, and the run's progress line moves step by step.
public final class StepLog: Sendable {
    public let startedAt: Seconds
    /// Put before every label (`allow · `), to tell apart the logs of one variant's scenarios.
    public let prefix: String
    private let steps = Mutex<[Step]>([])
    private let progress: ProgressCounter?
    private let afterEachStep = Mutex<(@Sendable () -> Void)?>(nil)

    public init(startedAt: Seconds = MonotonicClock.now(), progress: ProgressCounter? = nil, prefix: String = "") {
        self.startedAt = startedAt
        self.progress = progress
        self.prefix = prefix
    }

    /// Records `label` as happening now, on the calling thread and queue; returns the step.
    @discardableResult
    public func record(_ label: String) -> Step {
        record(label, at: MonotonicClock.now(), place: .current)
    }

    /// Records a step observed elsewhere: at monotonic instant `instant`, in `place`.
    @discardableResult
    public func record(_ label: String, at instant: Seconds, place: ExecutionPlace) -> Step {
        let step = Step(t: instant - startedAt, label: prefix + label, place: place)
        steps.withLock { $0.append(step) }
        progress?.advance()
        afterEachStep.withLock { $0 }?()
        return step
    }

    /// Calls `hook` after every step from now on (a scenario that may trap hands its steps so
    /// far to the harness this way).
    public func onEachStep(_ hook: @escaping @Sendable () -> Void) {
        afterEachStep.withLock { $0 = hook }
    }

    /// The steps in time order.
    public var all: [Step] { steps.withLock { $0 }.sorted { $0.t < $1.t } }

    /// The first step whose label (after the log's prefix) starts with `start`.
    public func first(_ start: String) -> Step? { all.first { $0.label.hasPrefix(prefix + start) } }

    /// Steps for the report: `thread` reads `queue · thread`, for example
    /// `chat.library · -qos.overcommit #4711`.
    public var events: [TimedEvent] {
        all.map { TimedEvent(t: $0.t, label: $0.label, thread: "\($0.place.queue) · \($0.place.thread)") }
    }
}
