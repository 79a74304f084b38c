/// The threads of this process by identity: a key that stays the same for a thread's whole
/// life and is not given to another thread while the process runs (the kernel thread id on
/// Linux, the 64-bit thread id behind each thread port on Darwin).
///
/// Counting threads "added by a block" needs identities, not counts: a count taken before the
/// block still includes threads that were exiting from earlier code, and their exits hide new
/// threads from a peak-minus-baseline difference.
public enum ThreadRoster {
    /// The identities of every thread of this process right now.
    public static func identities() -> Set<UInt64> {
        platformIdentities()
    }

    /// The name of thread `id` as the system keeps it (Linux: at most 15 bytes), empty when it
    /// has none or is gone.
    public static func name(of id: UInt64) -> String {
        platformName(of: id)
    }

    /// The identity of the calling thread.
    public static var currentIdentity: UInt64 {
        platformCurrentIdentity()
    }
}
