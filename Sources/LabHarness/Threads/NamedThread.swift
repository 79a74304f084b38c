import Foundation

/// Starts `Thread`s whose names the kernel (and so `/proc`, `top -H`, gdb and `ThreadCensus`)
/// can see.
///
/// On Linux, swift-corelibs-foundation keeps a `Thread.name` set before `start()` on the
/// `Thread` object only; the kernel's name (`comm`) stays the process name. A name set from
/// inside the running thread does reach the kernel (truncation aside: names over 15 bytes are
/// refused). So the thread names itself first thing.
public enum NamedThread {
    /// Starts a thread named `name` running `body`.
    @discardableResult
    public static func start(_ name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) -> Thread {
        let thread = Thread {
            Thread.current.name = name
            body()
        }
        thread.name = name
        if let stackSize { thread.stackSize = stackSize }
        thread.start()
        return thread
    }
}
