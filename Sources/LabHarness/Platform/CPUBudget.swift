import CLabSupport

/// The CPUs this process may use, as found at run time: the affinity mask (what `taskset` and a
/// container's cpuset set, and what libdispatch sizes its pool from: swift-corelibs-libdispatch
/// src/shims/hw_config.h counts `pthread_getaffinity_np`'s mask), capped by a cgroup CPU quota
/// where one is set (`cpu.max`, `cpu.cfs_quota_us`). `ProcessInfo.activeProcessorCount` counts
/// the CPUs online, which a process pinned to one CPU cannot use: a gate sized from it was as
/// wide as the pool under `taskset -c 0`.
///
/// Where the platform has no affinity mask or no cgroup (Darwin), the online count stands and
/// `statement` says so.
public struct CPUBudget: Sendable, Equatable {
    /// CPUs online.
    public var online: Int
    /// CPUs in the affinity mask; `nil` where the platform keeps none.
    public var affinity: Int?
    /// The cgroup quota in CPUs' worth of time (1.5 = one and a half CPUs); `nil` for none or unknown.
    public var quota: Double?

    public init(online: Int, affinity: Int?, quota: Double?) {
        self.online = max(1, online)
        self.affinity = affinity.map { max(1, $0) }
        self.quota = quota
    }

    /// This process's, read once.
    public static let current: CPUBudget = {
        let online = Int(clab_cpu_online_count())
        let affinity = Int(clab_cpu_affinity_count())
        let quota = clab_cgroup_cpu_quota()
        return CPUBudget(
            online: online > 0 ? online : 1, affinity: affinity > 0 ? affinity : nil, quota: quota > 0 ? quota : nil)
    }()

    /// The width of libdispatch's pool at start and of Swift's cooperative pool: the CPUs in the
    /// affinity mask (a quota does not narrow them), else the CPUs online.
    public var poolWidth: Int { affinity ?? online }

    /// The CPUs the process may use at once: the mask, capped by the quota rounded up.
    public var usable: Int {
        var count = affinity ?? online
        if let quota { count = min(count, max(1, Int(quota.rounded(.up)))) }
        return max(1, count)
    }

    /// One line for reports: where the count came from.
    public var statement: String {
        var parts: [String] = []
        if let affinity {
            parts.append("\(affinity) of \(online) online CPUs in the affinity mask")
        } else {
            parts.append("\(online) CPUs online (this platform keeps no affinity mask: the online count stands)")
        }
        if let quota { parts.append("a cgroup CPU quota of \(Format.number((quota * 100).rounded() / 100)) CPUs") }
        return parts.joined(separator: ", ")
    }
}
