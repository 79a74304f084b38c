import CLabSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
/// Darwin uses `task_threads` and `thread_info` on the current task only.
public enum ThreadCensus {
    /// The number of threads in process `pid` (this process by default), or `nil` when the
    /// process is gone or the platform cannot tell.
    public static func count(pid: Int32? = nil) -> Int? {
        #if os(Linux)
        let path = pid.map { "/proc/\($0)/stat" } ?? "/proc/self/stat"
        return ProcStat.read(path: path)?.threadCount
        #elseif canImport(Darwin)
        guard pid == nil || pid == getpid() else { return nil }
        return DarwinThreads.count()
        #else
        return nil
        #endif
    }

    /// Every thread of process `pid` with its name and state; empty when the process is gone.
    public static func threads(pid: Int32? = nil) -> [ThreadInfo] {
        #if os(Linux)
        let base = pid.map { "/proc/\($0)/task" } ?? "/proc/self/task"
        return ProcStat.taskIDs(in: base).compactMap { tid in
            guard let stat = ProcStat.read(path: "\(base)/\(tid)/stat") else { return nil }
            let comm = ProcStat.readSmallFile("\(base)/\(tid)/comm")?.trimmingTrailingNewline() ?? stat.comm
            return ThreadInfo(id: tid, name: comm, state: stat.state)
        }
        #elseif canImport(Darwin)
        guard pid == nil || pid == getpid() else { return [] }
        return DarwinThreads.describe()
        #else
        return []
        #endif
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

private extension String {
    func trimmingTrailingNewline() -> String {
        var s = self
        while s.last == "\n" { s.removeLast() }
        return s
    }
}

#if os(Linux)
/// The few fields of a `/proc/.../stat` line the lab needs, parsed without Foundation so the
/// thread sampler stays cheap.
struct ProcStat {
    var comm: String
    var state: ThreadState
    var threadCount: Int

    /// The `Threads:` line of an open `/proc/.../status` descriptor, read and parsed in C
    /// (`clab_status_thread_count`). The thread sampler checks its fast count against this and
    /// falls back on it; see `FastThreadCounter` for what each source costs.
    static func threadCount(statusFD fd: Int32) -> Int? {
        let value = clab_status_thread_count(fd)
        return value >= 0 ? value : nil
    }

    static func read(path: String) -> ProcStat? {
        guard let text = readSmallFile(path) else { return nil }
        return parse(text)
    }

    /// `pid (comm) S ppid ...`: comm may hold spaces and parentheses, so fields are counted
    /// from the last `)`.
    static func parse(_ line: String) -> ProcStat? {
        let bytes = Array(line.utf8)
        guard let open = bytes.firstIndex(of: UInt8(ascii: "(")),
              let close = bytes.lastIndex(of: UInt8(ascii: ")")), close + 2 < bytes.count else { return nil }
        let comm = String(decoding: bytes[(open + 1)..<close], as: UTF8.self)
        let state = ThreadState(procCode: bytes[close + 2])
        // Fields after `)`: 3 state, 4 ppid, ... 20 num_threads. Field 3 sits at index 0 here.
        let rest = bytes[(close + 2)...].split(separator: UInt8(ascii: " "))
        var threads = 0
        if rest.count > 17 { threads = Int(String(decoding: rest[rest.startIndex + 17], as: UTF8.self)) ?? 0 }
        return ProcStat(comm: comm, state: state, threadCount: threads)
    }

    /// Reads a small procfs file in one `read`; procfs files report size 0, so no `stat`.
    static func readSmallFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n], as: UTF8.self)
    }

    static func taskIDs(in directory: String) -> [Int] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var ids: [Int] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if let id = Int(name) { ids.append(id) }
        }
        return ids.sorted()
    }
}
#endif

#if canImport(Darwin)
/// Darwin: the current task's threads through Mach. Names come from `THREAD_EXTENDED_INFO`.
enum DarwinThreads {
    static func withThreads<T>(_ body: (UnsafeBufferPointer<thread_act_t>) -> T) -> T? {
        var list: thread_act_array_t?
        var count: mach_msg_type_number_t = 0
        guard task_threads(mach_task_self_, &list, &count) == KERN_SUCCESS, let list else { return nil }
        defer {
            for i in 0..<Int(count) { mach_port_deallocate(mach_task_self_, list[i]) }
            vm_deallocate(mach_task_self_, vm_address_t(UInt(bitPattern: list)),
                          vm_size_t(Int(count) * MemoryLayout<thread_act_t>.stride))
        }
        return body(UnsafeBufferPointer(start: list, count: Int(count)))
    }

    static func count() -> Int? { withThreads { $0.count } }

    static func describe() -> [ThreadInfo] {
        withThreads { threads in
            threads.enumerated().map { index, thread in
                var info = thread_extended_info_data_t()
                var size = mach_msg_type_number_t(MemoryLayout<thread_extended_info_data_t>.size / MemoryLayout<natural_t>.size)
                let ok = withUnsafeMutablePointer(to: &info) {
                    $0.withMemoryRebound(to: integer_t.self, capacity: Int(size)) {
                        thread_info(thread, thread_flavor_t(THREAD_EXTENDED_INFO), $0, &size)
                    }
                } == KERN_SUCCESS
                guard ok else { return ThreadInfo(id: index, name: "", state: nil) }
                let name = withUnsafeBytes(of: info.pth_name) { raw in
                    String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
                }
                let state: ThreadState
                switch info.pth_run_state {
                case TH_STATE_RUNNING: state = .running
                case TH_STATE_STOPPED: state = .stopped
                case TH_STATE_WAITING, TH_STATE_HALTED: state = .sleeping
                case TH_STATE_UNINTERRUPTIBLE: state = .diskSleep
                default: state = .other
                }
                return ThreadInfo(id: index, name: name, state: state)
            }
        } ?? []
    }
}
#endif
