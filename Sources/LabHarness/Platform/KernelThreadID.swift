import Foundation

/// The kernel's id of the calling thread, the same id `ThreadCensus.threads()` lists, so code
/// can tell which of a process's threads it ran on (for example to tell the threads a design
/// created from the ones its callers ran on).
///
/// `HostPlatform.currentThreadID()`: one `gettid` system call on Linux, `pthread_threadid_np`
/// on Darwin; cheap enough for a hot path that records every request's thread.
public enum KernelThreadID {
    /// The calling thread's id; `nil` where the platform gives none.
    public static func current() -> Int? {
        let id = Int(truncatingIfNeeded: HostPlatform.currentThreadID())
        return id > 0 ? id : nil
    }
}
