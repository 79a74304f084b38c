/// How large the global concurrent queue's pool can grow on this machine, as found at run time,
/// so that an experiment whose premise is "more blocked blocks than the pool has threads" sizes
/// its flood from the platform instead of assuming Linux's figures.
///
/// - Darwin: the kernel adds a worker as soon as one blocks, up to a limit it states in the
///   sysctl `kern.wq_max_constrained_threads` (xnu `pthread_workqueue.c`: max(WORKQUEUE_MAXTHREADS
///   / 8, CPUs × WORKQUEUE_CONSTRAINED_FACTOR) = max(64, 5 × CPUs)); the global queues draw from
///   that constrained pool. A flood must outnumber it, or every block gets a thread at once.
/// - Linux: libdispatch states no limit at run time (its 255 is a compile-time constant); its
///   pool starts as wide as the cores and a monitor adds one thread a second, so any flood of
///   more blocks than cores outnumbers it for seconds. Nothing is stated; the caller's own
///   figures stand.
public struct DispatchPoolSize: Sendable, Equatable {
    /// The threads the kernel lets the global queues' pool hold, where it states a limit.
    public var statedLimit: Int?
    /// Every workqueue thread the kernel allows (overcommit included), where it states one.
    var statedTotal: Int?

    public init(statedLimit: Int?, statedTotal: Int?) {
        self.statedLimit = statedLimit
        self.statedTotal = statedTotal
    }

    /// This machine's, read once.
    public static let current: DispatchPoolSize = {
        let limits = HostPlatform.dispatchPoolLimits()
        return DispatchPoolSize(statedLimit: limits?.constrained, statedTotal: limits?.total)
    }()

    /// A flood size for a premise of blocks outnumbering the pool: `base` where the kernel states
    /// no limit (Linux, unchanged), else enough to fill the stated pool `poolsFull` times over
    /// plus `beyond` (if that is larger than `base`).
    public func floodSize(base: Int, poolsFull: Int = 1, beyond: Int) -> Int {
        guard let limit = statedLimit else { return base }
        return max(base, poolsFull * limit + beyond)
    }

    /// Why `count` blocked blocks cannot exhaust the pool, or `nil` when they can (or the
    /// kernel states no limit to judge by).
    public func tooFewToExhaust(_ count: Int, what: String) -> String? {
        guard let limit = statedLimit, count <= limit else { return nil }
        return
            "\(count) \(what) fit in the pool the kernel states (\(limit) threads, kern.wq_max_constrained_threads): "
            + "each gets a thread at once and nothing waits; the premise needs more than \(limit)"
    }

    /// One line for a report, such as "the kernel states a pool of 64 threads
    /// (kern.wq_max_constrained_threads; 512 workqueue threads in all)"; `nil` without one.
    public var statement: String? {
        guard let limit = statedLimit else { return nil }
        let total = statedTotal.map { "; \($0) workqueue threads in all" } ?? ""
        return "the kernel states a pool of \(limit) threads (kern.wq_max_constrained_threads\(total))"
    }
}
