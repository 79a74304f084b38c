import Foundation

/// Asks the scheduler to run the calling thread ahead of every normal thread: POSIX
/// `SCHED_FIFO` at the lowest real-time priority (1).
///
/// Exists for threads whose whole job is to be on time and which use little CPU, such as a timer
/// thread that wakes ten thousand requests within a few milliseconds. At normal priority such a
/// thread competes with the very threads it wakes: on the lab's 2-core Linux VM, `perf sched`
/// showed each pool thread woken by a resumed continuation running on the timer thread's own
/// core and preempting it, while the other core was mostly idle, and the timer thread fell
/// milliseconds behind its deadlines. A real-time thread is not preempted by normal ones.
///
/// Real-time priority is a privilege: on Linux it needs root, `CAP_SYS_NICE` or a non-zero
/// `RLIMIT_RTPRIO`. Without it the request is refused and the thread keeps its normal priority;
/// the caller reports which happened, so a reader knows what the figures were measured with.
/// The kernel's real-time throttling (by default 950 ms of every second) still leaves normal
/// threads some CPU if a real-time thread never sleeps.
public enum RealtimePriority {
    /// What the scheduler answered.
    public enum Grant: Sendable, Equatable, CustomStringConvertible {
        /// The thread runs under `SCHED_FIFO` at `priority`.
        case granted(priority: Int32)
        /// The request was refused with `errno`; the thread kept its normal priority.
        case refused(errno: Int32)

        public var isGranted: Bool {
            if case .granted = self { return true }
            return false
        }

        /// "real-time priority (SCHED_FIFO 1)" or "normal priority (real-time refused: EPERM, …)".
        public var description: String {
            switch self {
            case .granted(let priority):
                return "real-time priority (SCHED_FIFO \(priority))"
            case .refused(let code):
                let reason = code == EPERM
                    ? "EPERM, needs root, CAP_SYS_NICE or RLIMIT_RTPRIO"
                    : (String(validatingCString: strerror(code)) ?? "error \(code)")
                return "normal priority (real-time refused: \(reason))"
            }
        }
    }

    /// The priority asked for: the lowest real-time one, so any real-time thread of the
    /// system's own still comes first.
    public static let requestedPriority: Int32 = 1

    /// Puts the calling thread under `SCHED_FIFO` at `priority` (by default
    /// `requestedPriority`), if allowed.
    public static func requestForCurrentThread(priority: Int32 = requestedPriority) -> Grant {
        var parameters = sched_param()
        parameters.sched_priority = priority
        let code = pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters)
        return code == 0 ? .granted(priority: priority) : .refused(errno: code)
    }

    /// The calling thread's scheduling policy and priority, as the kernel has them now.
    public static func currentPolicy() -> (policy: Int32, priority: Int32) {
        var policy: Int32 = 0
        var parameters = sched_param()
        _ = pthread_getschedparam(pthread_self(), &policy, &parameters)
        return (policy, parameters.sched_priority)
    }
}
