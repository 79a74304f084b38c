#if os(Linux)
import CLabSupport
import CoreFoundation
import Foundation

/// The platform this lab is measured on.
public typealias HostPlatform = LinuxPlatform

/// Linux (glibc): `/proc` for processes, threads and scheduler figures, an absolute
/// `clock_nanosleep` for drift-free periodic loops.
public enum LinuxPlatform: PlatformSeam {
    public static func sleep(untilMonotonic deadline: Seconds) {
        var ts = timespec()
        ts.tv_sec = Int(deadline.rounded(.down))
        ts.tv_nsec = Int((deadline - deadline.rounded(.down)) * 1_000_000_000)
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }

    public static func sleep(forSeconds duration: Seconds) {
        sleep(untilMonotonic: MonotonicClock.now() + duration)
    }

    public static func processCPUTime() -> Seconds {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    public static func processes() -> [ProcessTable.Entry] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.compactMap { name in
            guard let pid = Int32(name),
                  let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
            guard fields.count > 1, let state = fields[0].first, let parent = Int32(fields[1]) else { return nil }
            let raw = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()
            let commandLine = String(decoding: raw.map { $0 == 0 ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
                .trimmingCharacters(in: .whitespaces)
            return ProcessTable.Entry(pid: pid, parent: parent, state: state, commandLine: commandLine)
        }
    }

    /// `/proc/thread-self/schedstat`: nanoseconds on a CPU, then nanoseconds waiting for one.
    public static func currentThreadRunnableTime() -> (onCPU: Seconds, waiting: Seconds)? {
        guard let text = try? String(contentsOfFile: "/proc/thread-self/schedstat", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard fields.count >= 2 else { return nil }
        return (fields[0] / 1e9, fields[1] / 1e9)
    }

    /// The TID, from glibc's `gettid()` through the C shim (Swift's Glibc module does not
    /// import it): one system call, no file to read.
    public static func currentThreadID() -> UInt64 {
        UInt64(clab_current_thread_id())
    }

    /// glibc's `RTLD_DEFAULT` is a null handle.
    public static var searchAllLibraries: UnsafeMutableRawPointer? { nil }

    /// A plain `CFString` here.
    public static var defaultRunLoopMode: CFTypeRef { kCFRunLoopDefaultMode }

    /// Field 20 (`num_threads`) of `/proc/PID/stat`: one small read however many threads.
    public static func threadCount(pid: Int32?) -> Int? {
        let path = pid.map { "/proc/\($0)/stat" } ?? "/proc/self/stat"
        return ProcStat.read(path: path)?.threadCount
    }

    /// `/proc/PID/task/*/{stat,comm}`, for any process this user may read.
    public static func threads(pid: Int32?) -> [ThreadInfo] {
        ProcStat.threads(inTaskDirectory: pid.map { "/proc/\($0)/task" } ?? "/proc/self/task")
    }

    /// The target of `/proc/self/exe`.
    public static func executablePathFromKernel() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `PR_SET_PDEATHSIG`: the kernel sends `SIGKILL` when the parent's spawning thread exits.
    public static func dieWithParent(_ parent: Int32) {
        _ = clab_set_parent_death_signal(SIGKILL)
    }

    private static func seconds(_ tv: timeval) -> Seconds {
        Seconds(tv.tv_sec) + Seconds(tv.tv_usec) / 1_000_000
    }
}
#endif
