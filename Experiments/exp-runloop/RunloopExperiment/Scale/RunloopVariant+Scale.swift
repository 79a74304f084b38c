/// The variants that keep many requests' timeouts, and the design each one runs.
extension RunloopVariant {
    /// The timeout design a variant measures with `TimeoutTrial` (`nil` for the others).
    var timeoutDesign: TimeoutDesignName? {
        switch self {
        case .deadlineHeap: .deadlineHeap
        case .dispatchTimer: .dispatchTimer
        case .taskSleep: .taskSleep
        default: nil
        }
    }

    /// Request variants that neither block on the pool nor start a thread per request: they
    /// take up to `ScaleParameters.maxTasks` requests with async callers.
    static let scalable: [RunloopVariant] = [.sharedThread, .deadlineHeap, .dispatchTimer, .taskSleep]

    /// The variants a run-loop request variant hands its requests to, which cap `--tasks` at
    /// `ScaleParameters.blockingCap` (a thread, a pool block or an operation per request).
    var holdsAThreadPerRequest: Bool {
        switch self {
        case .globalQueue, .runUntilDate, .operationQueue, .dedicatedThread, .dedicatedThreadAsync, .literalRun: true
        default: false
        }
    }
}
