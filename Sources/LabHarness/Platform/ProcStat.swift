import CLabSupport

/// The `Threads:` line of Linux's `/proc/.../status`, read in C so the thread sampler stays
/// cheap. (The other `/proc` readers, threads and processes, are in the C shim as well:
/// `clab_threads`, `clab_processes`.)
enum ProcStat {
    /// The `Threads:` line of an open `/proc/.../status` descriptor, read and parsed in C
    /// (`clab_status_thread_count`). The thread sampler checks its fast count against this and
    /// falls back on it; see `FastThreadCounter` for what each source costs.
    static func threadCount(statusFD fd: Int32) -> Int? {
        let value = clab_status_thread_count(fd)
        return value >= 0 ? value : nil
    }
}
