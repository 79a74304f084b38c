#if os(Linux)
import Foundation

// Linux: every thread is a task under /proc/self/task, named by its kernel thread id (tid).
// Tids come from the pid counter, which only wraps after pid_max (millions) allocations, so
// a tid is not reused within a block.
extension ThreadRoster {
    static func platformIdentities() -> Set<UInt64> {
        Set(ProcStat.taskIDs(in: "/proc/self/task").map { UInt64($0) })
    }

    static func platformName(of id: UInt64) -> String {
        guard var name = ProcStat.readSmallFile("/proc/self/task/\(id)/comm") else { return "" }
        while name.last == "\n" { name.removeLast() }
        return name
    }

    static func platformCurrentIdentity() -> UInt64 {
        HostPlatform.currentThreadID()
    }
}
#endif
