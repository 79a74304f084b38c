/// The metrics a timeout trial reports, by the names they travel under.
public enum TimeoutMetric: String, Sendable, CaseIterable {
    /// Requests issued, woken by their timeout, completed first, woken before their deadline.
    case requests, timedOut = "timed_out", completed, early
    /// Fire time − deadline over the requests that timed out, in milliseconds.
    case latenessP50 = "lateness.p50_ms", latenessP99 = "lateness.p99_ms", latenessMax = "lateness.max_ms"
    /// First request issued to last request woken, over the timeout.
    case wallPerTimeout = "wall_per_timeout"
    /// First request issued to last request armed, in seconds.
    case issue = "issue_s"
    /// Last deadline to last request woken: how far firing fell behind, in seconds.
    case drain = "drain_s"
    /// Threads that appeared while the design ran and never ran a caller.
    case threadsAdded = "threads.added"
    /// Peak resident memory of the whole process (its life so far), in MB.
    case memoryPeak = "memory.peak_mb"
    /// Process CPU time from the design's start to the last request woken.
    case cpu = "cpu_s"
}
