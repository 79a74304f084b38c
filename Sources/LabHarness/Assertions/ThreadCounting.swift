/// What `assertThreadPeak` counts.
public enum ThreadCounting: Sendable {
    /// Threads that appeared while the block ran and were not there before it, by identity
    /// (see `NewThreadWatch`).
    case added
    /// All threads of the process at the sampled peak.
    case total
}
