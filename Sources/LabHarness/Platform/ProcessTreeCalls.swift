import CLabSupport
import Foundation

/// The shim's process-tree calls (`CLabPlatform.h`, "Process trees"), for `lab watch`.
extension HostPlatform {
    /// Linux `PR_SET_CHILD_SUBREAPER`; false where there is no such thing (Darwin).
    public static func becomeSubreaper() -> Bool { clab_become_subreaper() == 0 }

    /// The loader's variable for libraries loaded before a program's own (`LD_PRELOAD` on
    /// Linux); `nil` where `lab watch` uses none (Darwin).
    public static var preloadVariable: String? { clab_preload_variable().map { String(cString: $0) } }

    /// CPU seconds process `pid` has used (`own`), and those its reaped children used (with their
    /// own reaped children's): `clab_process_cpu_times_of`. `nil` when it is gone.
    public static func cpuTimes(of pid: Int32) -> (own: Seconds, children: Seconds)? {
        var own = 0.0, children = 0.0
        return clab_process_cpu_times_of(pid, &own, &children) == 0 ? (own, children) : nil
    }

    /// The user id that owns process `pid`; `nil` when it is gone or unknown.
    public static func owner(of pid: Int32) -> Int? {
        let value = clab_process_owner(pid)
        return value >= 0 ? Int(value) : nil
    }
}
