import LabHarness

/// The ways of keeping many requests' timeouts: one name each, for its variant (`--variant
/// deadline-heap`), its sweep points and its verdicts (`shared-thread` is also the request
/// placement of that name: the same thread, measured by the request trial there).
public enum TimeoutDesignName: String, CaseIterable, VariantName {
    /// One run-loop thread, one run-loop `Timer` per request (the existing `shared-thread`).
    case sharedThread = "shared-thread"
    /// The same kind of run-loop thread, one run-loop timer re-armed for the earliest deadline
    /// of a min-heap of pending requests.
    case deadlineHeap = "deadline-heap"
    /// No run loop: a `DispatchSourceTimer` per request on one serial queue.
    case dispatchTimer = "dispatch-timer"
    /// No run loop and no thread of its own: a child task sleeping until the deadline.
    case taskSleep = "task-sleep"

    /// Whether the design keeps its timeouts on a thread of its own that asks for real-time
    /// priority (`RealtimePriority`): the two run-loop designs, so that a sweep compares their
    /// bookkeeping, not their priority. A same-moment control for such a design must ask too
    /// (`StallWatch(realtime:)`), or it would subtract delays only normal threads suffer.
    public var runsOnRealtimeThread: Bool {
        switch self {
        case .sharedThread, .deadlineHeap: true
        case .dispatchTimer, .taskSleep: false
        }
    }

    /// Starts the design; `nil` if it could not start (no port for a run-loop thread).
    public func start() -> (any TimeoutDesign)? {
        switch self {
        case .sharedThread: SharedThreadTimeouts.start(realtime: runsOnRealtimeThread)
        case .deadlineHeap: DeadlineHeapTimeouts.start(realtime: runsOnRealtimeThread)
        case .dispatchTimer: DispatchTimerTimeouts()
        case .taskSleep: TaskSleepTimeouts()
        }
    }
}
