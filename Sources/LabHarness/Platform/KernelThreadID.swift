import Foundation

/// The kernel's id of the calling thread, the same id `ThreadCensus.threads()` lists, so code
/// can tell which of a process's threads it ran on (for example to tell the threads a design
/// created from the ones its callers ran on).
///
/// Linux: Glibc's `gettid()` and `syscall` do not import into Swift, so the id is read once per
/// thread from the `/proc/thread-self` link (`PID/task/TID`) and kept in a thread-specific
/// slot; later calls on that thread cost one `pthread_getspecific`.
public enum KernelThreadID {
    /// The calling thread's id (Linux TID); `nil` where it cannot be matched with
    /// `ThreadCensus`'s ids (Darwin lists threads by position there).
    public static func current() -> Int? {
        #if os(Linux)
        if let cached = pthread_getspecific(key) { return Int(bitPattern: cached) }
        var buffer = [CChar](repeating: 0, count: 64)
        let n = readlink("/proc/thread-self", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        let link = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let last = link.split(separator: "/").last, let tid = Int(last), tid > 0 else { return nil }
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
