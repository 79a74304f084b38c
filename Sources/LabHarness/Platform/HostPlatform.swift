import CLabSupport
import Foundation

/// The platform this build runs on: every answer comes from the C shim (`Sources/CLabSupport`,
/// `CLabPlatform.h`), which holds the one implementation per operating system, so this type
/// has no platform branch. Where a platform cannot answer, the shim says so and this type
/// passes that on (`nil`, empty, a reason), never a guess.
public enum HostPlatform: PlatformSeam {
    /// `linux`, `macos`, `ios` or `unknown`, as the shim was compiled.
    static var osName: String { String(cString: clab_os_name()) }

    public static func sleep(untilMonotonic deadline: Seconds) {
        clab_sleep_until_monotonic(deadline)
    }

    public static func sleep(forSeconds duration: Seconds) {
        clab_sleep_for(duration)
    }

    static func processCPUTime() -> Seconds {
        clab_process_cpu_seconds()
    }

    /// Linux `/proc`; Darwin `libproc` (`proc_listallpids`, `PROC_PIDTBSDINFO`, and the
    /// `KERN_PROCARGS2` sysctl for the arguments of this user's processes).
    static func processes() -> [ProcessTable.Entry] {
        let entries: [clab_process_entry] = fillGrowing(initial: 512) { clab_processes($0, $1) }
        return entries.map { entry in
            var entry = entry
            let command = withUnsafeBytes(of: &entry.command) { cString(in: $0) }
            return ProcessTable.Entry(
                pid: entry.pid, parent: entry.parent,
                state: Character(UnicodeScalar(UInt8(bitPattern: entry.state))),
                commandLine: command)
        }
    }

    /// Linux `/proc/thread-self/schedstat`; `nil` on Darwin, which keeps no run-queue time.
    public static func currentThreadRunnableTime() -> (onCPU: Seconds, waiting: Seconds)? {
        var onCPU: Double = 0
        var waiting: Double = 0
        guard clab_thread_run_times(&onCPU, &waiting) == 0 else { return nil }
        return (onCPU, waiting)
    }

    /// Linux: the TID (`gettid`). Darwin: `pthread_threadid_np`, the 64-bit id the kernel never
    /// reuses, the same that `threads(pid:)` lists for this process.
    public static func currentThreadID() -> UInt64 {
        UInt64(bitPattern: Int64(clab_current_thread_id()))
    }

    static var searchAllLibraries: UnsafeMutableRawPointer? { clab_search_all_libraries() }

    public static func threadCount(pid: Int32?) -> Int? {
        let count = clab_thread_count(pid ?? 0)
        return count >= 0 ? count : nil
    }

    public static func threads(pid: Int32?) -> [ThreadInfo] {
        let entries: [clab_thread_entry] = fillGrowing(initial: 256) { clab_threads(pid ?? 0, $0, $1) }
        return entries.map { entry in
            var entry = entry
            let name = withUnsafeBytes(of: &entry.name) { cString(in: $0) }
            return ThreadInfo(
                id: Int(entry.id), name: name, state: ThreadState(procCode: UInt8(bitPattern: entry.state)))
        }
    }

    public static func imagePath(containing address: UnsafeRawPointer) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        guard clab_image_path(address, &buffer, UInt(buffer.count)) == 0 else { return nil }
        return buffer.withUnsafeBytes { cString(in: $0) }
    }

    static func executablePathFromKernel() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        guard clab_executable_path(&buffer, UInt(buffer.count)) == 0 else { return nil }
        return buffer.withUnsafeBytes { cString(in: $0) }
    }

    /// Darwin: the Objective-C runtime's pool (`objc_autoreleasePoolPush`/`Pop`). Linux: none,
    /// only counted (`autoreleasePoolDepth`).
    static func withAutoreleasePool<T>(_ body: () throws -> T) rethrows -> T {
        let pool = clab_autorelease_pool_push()
        defer { clab_autorelease_pool_pop(pool) }
        return try body()
    }

    /// How many pools `withAutoreleasePool` has open on the calling thread.
    static var autoreleasePoolDepth: Int { clab_autorelease_pool_depth() }

    /// Linux: `PR_SET_PDEATHSIG` (SIGKILL). Darwin: a kqueue `EVFILT_PROC`/`NOTE_EXIT` watch on
    /// the parent, on a thread that exits 70 when it fires (or polls `getppid()` without a
    /// kqueue). Either way the child exits 70 at once if the parent is already gone.
    static func dieWithParent(_ parent: Int32) {
        _ = clab_die_with_parent(parent, 70)
    }

    /// The global concurrent queue's thread limits as the kernel states them (Darwin's
    /// `kern.wq_max_constrained_threads` and `kern.wq_max_threads`); `nil` where it states
    /// none (Linux, whose libdispatch keeps a compile-time limit).
    static func dispatchPoolLimits() -> (constrained: Int, total: Int)? {
        var constrained: Int32 = 0
        var total: Int32 = 0
        guard clab_dispatch_pool_limits(&constrained, &total) == 0 else { return nil }
        return (Int(constrained), Int(total))
    }

    /// Calls `fill(buffer, capacity)` (which returns how many it wrote, or -1) with more room
    /// until it leaves some unused, so nothing is cut off.
    private static func fillGrowing<T>(initial: Int, _ fill: (UnsafeMutablePointer<T>, Int) -> Int) -> [T] {
        var capacity = initial
        while capacity <= 1 << 20 {
            let buffer = UnsafeMutablePointer<T>.allocate(capacity: capacity)
            defer { buffer.deallocate() }
            let written = fill(buffer, capacity)
            if written < 0 { return [] }
            if written < capacity { return Array(UnsafeBufferPointer(start: buffer, count: written)) }
            capacity *= 2
        }
        return []
    }
}

/// The text of a NUL-terminated C string held in `raw` (a fixed-size C array).
func cString(in raw: UnsafeRawBufferPointer) -> String {
    String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
}
