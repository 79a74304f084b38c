import Foundation

/// The kernel's id of the calling thread, the same id `ThreadCensus.threads()` lists, so code
/// can tell which of a process's threads it ran on (for example to tell the threads a design
/// created from the ones its callers ran on).
///
/// Linux: the id comes from `HostPlatform.currentThreadID()` (a `readlink` of
/// `/proc/thread-self`, because Glibc's `gettid()` does not import into Swift) once per thread,
/// and is kept in a thread-specific slot: later calls on that thread cost one
/// `pthread_getspecific`, cheap enough for a hot path that records every request's thread.
public enum KernelThreadID {
    /// The calling thread's id (Linux TID); `nil` where it cannot be matched with
    /// `ThreadCensus`'s ids (Darwin lists threads by position there).
    public static func current() -> Int? {
        #if os(Linux)
        if let cached = pthread_getspecific(key) { return Int(bitPattern: cached) }
        let tid = Int(HostPlatform.currentThreadID())
        guard tid > 0 else { return nil }
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: tid))
        return tid
        #else
        return nil
        #endif
    }

    #if os(Linux)
    /// The thread-specific slot that caches each thread's id (never deleted: one per process).
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()
    #endif
}
