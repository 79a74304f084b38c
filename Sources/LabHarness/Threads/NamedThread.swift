import CLabSupport
import Foundation

/// Starts `Thread`s whose names the kernel (and so `/proc`, `top -H`, gdb and `ThreadCensus`)
/// can see.
///
/// Measured on Linux with swift-corelibs-foundation (Swift 6.3.1): a `Thread.name` set before
/// `start()` stays on the `Thread` object and never reaches the kernel (`comm` keeps the
/// process's name), and setting `Thread.current.name` from inside the new thread reached the
/// kernel only most of the time (3 of 4 threads under load). So the thread names itself
/// through `pthread_setname_np` first thing, which is what the kernel keeps (at most 15 bytes:
/// a longer name is refused and the old one stays).
public enum NamedThread {
    /// Starts a thread named `name` running `body`.
    @discardableResult
    public static func start(_ name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) -> Thread {
        let thread = Thread {
            nameCurrentThread(name)
            body()
        }
        thread.name = name
        if let stackSize { thread.stackSize = stackSize }
        thread.start()
        return thread
    }

    /// Names the calling thread, for the kernel and for Foundation. Returns false when the
    /// kernel refused the name (over 15 bytes on Linux).
    @discardableResult
    public static func nameCurrentThread(_ name: String) -> Bool {
        Thread.current.name = name
        return clab_set_current_thread_name(name) == 0
    }
}
