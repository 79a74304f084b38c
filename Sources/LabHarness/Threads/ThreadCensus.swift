/// What the kernel says a thread is doing when it is looked at.
public enum ThreadState: String, Sendable, Codable, CaseIterable {
    /// On a CPU or ready to run (`R`).
    case running = "R"
    /// Asleep and interruptible: waiting on a semaphore, a lock, a timer, I/O readiness (`S`).
    case sleeping = "S"
    /// Asleep and uninterruptible, usually in disk I/O (`D`).
    case diskSleep = "D"
    /// Stopped or traced (`T`, `t`).
    case stopped = "T"
    /// Exited but not yet joined (`Z`).
    case zombie = "Z"
    /// Anything else the platform reports (idle kernel threads, dead, unknown).
    case other = "?"

    init(procCode: UInt8) {
        switch procCode {
        case UInt8(ascii: "R"): self = .running
        case UInt8(ascii: "S"), UInt8(ascii: "I"): self = .sleeping
        case UInt8(ascii: "D"): self = .diskSleep
        case UInt8(ascii: "T"), UInt8(ascii: "t"): self = .stopped
        case UInt8(ascii: "Z"), UInt8(ascii: "X"): self = .zombie
        default: self = .other
        }
    }
}

/// One thread of a process, as the platform describes it.
public struct ThreadInfo: Sendable, Equatable, Codable {
    /// The kernel's thread id (Linux TID; Darwin thread id).
    public var id: Int
    /// The thread's name as the kernel keeps it (Linux: at most 15 bytes; longer names set
    /// through `Thread.name` never reach the kernel). Empty when unknown.
    public var name: String
    /// `nil` where the platform does not tell.
    public var state: ThreadState?

    public init(id: Int, name: String, state: ThreadState?) {
        self.id = id
        self.name = name
        self.state = state
    }
}

/// Counts and describes the threads of a process.
///
/// Linux reads `/proc/PID/stat` (field 20, `num_threads`) for the count, which is one small read
/// however many threads there are, and `/proc/PID/task/*/{stat,comm}` for names and states.
/// Darwin uses `task_threads` and `thread_info` for this process and libproc for another.
/// Both readers are in the C shim, behind `HostPlatform.threadCount(pid:)` and `threads(pid:)`.
public enum ThreadCensus {
    /// The number of threads in process `pid` (this process by default), or `nil` when the
    /// process is gone or the platform cannot tell.
    public static func count(pid: Int32? = nil) -> Int? {
        HostPlatform.threadCount(pid: pid)
    }

    /// Every thread of process `pid` with its name and state; empty when the process is gone.
    public static func threads(pid: Int32? = nil) -> [ThreadInfo] {
        HostPlatform.threads(pid: pid)
    }

    /// A one-line account such as `27 threads: 2 R, 25 S`, for evidence in reports.
    public static func describe(_ threads: [ThreadInfo]) -> String {
        var counts: [ThreadState: Int] = [:]
        for thread in threads { if let s = thread.state { counts[s, default: 0] += 1 } }
        let parts = ThreadState.allCases.compactMap { state in counts[state].map { "\($0) \(state.rawValue)" } }
        let noun = threads.count == 1 ? "thread" : "threads"
        return parts.isEmpty ? "\(threads.count) \(noun)" : "\(threads.count) \(noun): " + parts.joined(separator: ", ")
    }
}
