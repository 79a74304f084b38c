import CLabSupport
import Foundation

/// Asks the scheduler to run the calling thread ahead of every normal thread ("on time"), in
/// the form each platform offers, and reports what it granted.
///
/// - Linux: POSIX `SCHED_FIFO` at the lowest real-time priority (1).
/// - Darwin: the Mach time-constraint policy (`THREAD_TIME_CONSTRAINT_POLICY`: 1 ms of CPU
///   within 2 ms of each wake-up), else QoS user-interactive. Never `SCHED_FIFO`: Darwin
///   accepts it but maps it to a fixed priority far below the default, which would demote the
///   thread while the report said "real-time".
///
/// Exists for threads whose whole job is to be on time and which use little CPU, such as a timer
/// thread that wakes ten thousand requests within a few milliseconds. At normal priority such a
/// thread competes with the very threads it wakes: on the lab's 2-core Linux VM, `perf sched`
/// showed each pool thread woken by a resumed continuation running on the timer thread's own
/// core and preempting it, while the other core was mostly idle, and the timer thread fell
/// milliseconds behind its deadlines. A real-time thread is not preempted by normal ones.
///
/// Real-time priority is a privilege on Linux: it needs root, `CAP_SYS_NICE` or a non-zero
/// `RLIMIT_RTPRIO`. Without it the request is refused and the thread keeps its normal priority;
/// the caller reports which happened, so a reader knows what the figures were measured with.
/// The kernel's real-time throttling (by default 950 ms of every second) still leaves normal
/// threads some CPU if a real-time thread never sleeps.
public enum RealtimePriority {
    /// What the scheduler answered.
    public enum Grant: Sendable, Equatable, CustomStringConvertible {
        /// The thread runs under `SCHED_FIFO` at `priority` (Linux).
        case granted(priority: Int32)
        /// The thread runs under Darwin's time-constraint policy: `computation` microseconds of
        /// CPU within `constraint` microseconds of each wake-up.
        case timeConstraint(computationMicroseconds: Int32, constraintMicroseconds: Int32)
        /// Darwin refused the time-constraint policy (Mach error `kernelError`); the thread runs
        /// at QoS user-interactive instead, the highest class a normal thread has.
        case userInteractive(kernelError: Int32)
        /// The request was refused with `errno`; the thread kept its normal priority.
        case refused(errno: Int32)

        public var isGranted: Bool {
            if case .refused = self { return false }
            return true
        }

        /// "real-time priority (SCHED_FIFO 1)", "real-time priority (Darwin time-constraint
        /// policy, …)", "QoS user-interactive (…)" or "normal priority (real-time refused: …)".
        public var description: String {
            switch self {
            case .granted(let priority):
                return "real-time priority (SCHED_FIFO \(priority))"
            case .timeConstraint(let computation, let constraint):
                return
                    "real-time priority (Darwin time-constraint policy, \(computation) µs of CPU within \(constraint) µs)"
            case .userInteractive(let error):
                return "QoS user-interactive (the time-constraint policy was refused: Mach error \(error))"
            case .refused(let code):
                let reason =
                    code == EPERM
                    ? "EPERM, needs root, CAP_SYS_NICE or RLIMIT_RTPRIO"
                    : (String(validatingCString: strerror(code)) ?? "error \(code)")
                return "normal priority (real-time refused: \(reason))"
            }
        }
    }

    /// The priority asked for where priorities are numbered (Linux `SCHED_FIFO`): the lowest
    /// real-time one, so any real-time thread of the system's own still comes first.
    public static let requestedPriority: Int32 = 1

    /// Asks for the calling thread to run on time (`priority` is the `SCHED_FIFO` priority
    /// where the platform numbers them; Darwin's time-constraint threads are ordered by their
    /// deadlines instead).
    public static func requestForCurrentThread(priority: Int32 = requestedPriority) -> Grant {
        let answer = clab_request_on_time(priority)
        switch answer.kind {
        case CLAB_ON_TIME_FIFO: return .granted(priority: answer.priority)
        case CLAB_ON_TIME_TIME_CONSTRAINT:
            return .timeConstraint(
                computationMicroseconds: answer.computation_us, constraintMicroseconds: answer.constraint_us)
        case CLAB_ON_TIME_USER_INTERACTIVE: return .userInteractive(kernelError: answer.error)
        default: return .refused(errno: answer.error)
        }
    }

    /// What the kernel now says the calling thread runs under: `.granted(priority:)` for
    /// `SCHED_FIFO`, `.timeConstraint` (with zero figures: the kernel's own are in Mach time
    /// units) or `.userInteractive(kernelError: 0)` on Darwin, `nil` for a normal thread.
    public static func currentGrant() -> Grant? {
        var priority: Int32 = 0
        switch clab_current_on_time(&priority) {
        case CLAB_ON_TIME_FIFO: return .granted(priority: priority)
        case CLAB_ON_TIME_TIME_CONSTRAINT: return .timeConstraint(computationMicroseconds: 0, constraintMicroseconds: 0)
        case CLAB_ON_TIME_USER_INTERACTIVE: return .userInteractive(kernelError: 0)
        default: return nil
        }
    }
}
