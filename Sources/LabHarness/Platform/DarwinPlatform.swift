#if canImport(Darwin)
import CoreFoundation
import Foundation

/// Darwin (macOS). Compiled by the macOS CI job; this project has not run it on a Mac yet.
public typealias HostPlatform = DarwinPlatform

/// Darwin: no `/proc`, so the process table and scheduler figures are unavailable (the lab says
/// so rather than guessing); relative `nanosleep`, since Darwin has no absolute
/// `clock_nanosleep`.
public enum DarwinPlatform: PlatformSeam {
    public static func sleep(untilMonotonic deadline: Seconds) {
        let remaining = deadline - MonotonicClock.now()
        if remaining > 0 { sleep(forSeconds: remaining) }
    }

    public static func sleep(forSeconds duration: Seconds) {
        var ts = timespec(tv_sec: Int(duration), tv_nsec: Int((duration - duration.rounded(.down)) * 1e9))
        var rest = timespec()
        while nanosleep(&ts, &rest) == -1 && errno == EINTR { ts = rest }
    }

    public static func processCPUTime() -> Seconds {
        var usage = rusage()
        getrusage(RUSAGE_SELF, &usage)
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    public static func processes() -> [ProcessTable.Entry] { [] }

    public static func currentThreadRunnableTime() -> (onCPU: Seconds, waiting: Seconds)? { nil }

    /// The pthread id (Darwin's thread ids are not the kernel's port names).
    public static func currentThreadID() -> UInt64 {
        var id: UInt64 = 0
        pthread_threadid_np(nil, &id)
        return id
    }

    /// Darwin's `RTLD_DEFAULT` is `(void *)-2`.
    public static var searchAllLibraries: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: -2) }

    /// A wrapped `CFString` here.
    public static var defaultRunLoopMode: CFTypeRef { CFRunLoopMode.defaultMode.rawValue }

    /// `task_threads` on the current task only (another process's task port needs privileges a
    /// test run does not have).
    public static func threadCount(pid: Int32?) -> Int? {
        guard pid == nil || pid == getpid() else { return nil }
        return DarwinThreads.count()
    }

    /// `task_threads` and `thread_info` on the current task only.
    public static func threads(pid: Int32?) -> [ThreadInfo] {
        guard pid == nil || pid == getpid() else { return [] }
        return DarwinThreads.describe()
    }

    /// No `/proc/self/exe`: `Bundle.main` answers instead.
    public static func executablePathFromKernel() -> String? { nil }

    /// No parent-death signal: a watcher thread polls `getppid()` and exits 70 once the parent
    /// is gone (the child is then re-parented, so the id changes).
    public static func dieWithParent(_ parent: Int32) {
        NamedThread.start("lab.lifeline") {
            while getppid() == parent { MonotonicClock.sleep(for: 0.1) }
            _exit(70)
        }
    }

    private static func seconds(_ tv: timeval) -> Seconds {
        Seconds(tv.tv_sec) + Seconds(tv.tv_usec) / 1_000_000
    }
}
#endif
