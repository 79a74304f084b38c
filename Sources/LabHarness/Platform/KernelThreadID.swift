import Foundation

/// The kernel's id of the calling thread, the same id `ThreadCensus.threads()` lists, so code
/// can tell which of a process's threads it ran on (for example to tell the threads a design
/// created from the ones its callers ran on).
///
/// Linux: `HostPlatform.currentThreadID()`, one `gettid` system call, cheap enough for a hot path
/// that records every request's thread.
public enum KernelThreadID {
    /// The calling thread's id (Linux TID); `nil` where it cannot be matched with
    /// `ThreadCensus`'s ids (Darwin lists threads by position there).
    public static func current() -> Int? {
        #if os(Linux)
        let tid = Int(HostPlatform.currentThreadID())
        return tid > 0 ? tid : nil
        #else
        return nil
        #endif
    }
}
