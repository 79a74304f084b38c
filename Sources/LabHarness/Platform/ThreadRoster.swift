import CLabSupport

/// The threads of this process by identity: a key that stays the same for a thread's whole
/// life and is not given to another thread while the process runs (the kernel thread id on
/// Linux, whose tids come from the pid counter and wrap only after pid_max allocations; the
/// 64-bit `thread_id` of THREAD_IDENTIFIER_INFO on Darwin, which the kernel never reuses, where
/// a thread port's name could be recycled).
///
/// Counting threads "added by a block" needs identities, not counts: a count taken before the
/// block still includes threads that were exiting from earlier code, and their exits hide new
/// threads from a peak-minus-baseline difference.
public enum ThreadRoster {
    /// The identities of every thread of this process right now.
    public static func identities() -> Set<UInt64> {
        var capacity = 256
        while capacity <= 1 << 20 {
            var ids = [UInt64](repeating: 0, count: capacity)
            let written = clab_thread_ids(&ids, capacity)
            if written < 0 { return [] }
            if written < capacity { return Set(ids.prefix(written)) }
            capacity *= 2
        }
        return []
    }

    /// The name of thread `id` as the system keeps it (Linux: at most 15 bytes), empty when it
    /// has none or is gone.
    public static func name(of id: UInt64) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        guard clab_thread_name_of(id, &buffer, UInt(buffer.count)) == 0 else { return "" }
        return buffer.withUnsafeBytes { cString(in: $0) }
    }
}
