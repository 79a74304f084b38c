import Foundation

/// Where code is running right now: the dispatch queue's label and the kernel thread.
///
/// A completion handler's whole point is *where* it may run, so every step the experiment
/// records says both. The queue is what the API contract talks about (`chat.library`,
/// `app.profiles`); the thread shows that a queue is not a thread (the same serial queue may run
/// on different pool threads from one block to the next).
public struct ExecutionPlace: Sendable, Equatable, Codable {
    /// The current dispatch queue's label: `chat.library`, `com.apple.main-thread`,
    /// `Swift global concurrent queue` inside a task; `?` when the runtime cannot tell.
    public var queue: String
    /// The thread's name and kernel id: `main #4700`, `-qos.overcommit #4711` (libdispatch names
    /// its pool threads after the tail of their root queue's label; the kernel keeps 15 bytes).
    public var thread: String
    public var isMainThread: Bool

    public init(queue: String, thread: String, isMainThread: Bool) {
        self.queue = queue
        self.thread = thread
        self.isMainThread = isMainThread
    }

    public static var current: ExecutionPlace {
        ExecutionPlace(
            queue: currentQueueLabel(), thread: "\(CurrentThread.name) #\(currentThreadID())",
            isMainThread: Thread.isMainThread)
    }

    /// `dispatch_queue_get_label(DISPATCH_CURRENT_QUEUE_LABEL)`. Swift marks the C function
    /// unavailable (renamed to `DispatchQueue.label`, which needs a queue in hand), and on Linux
    /// the Dispatch overlay does not export Darwin's `__dispatch_queue_get_label` either, so the
    /// C symbol is looked up once at run time and called with a null queue, meaning "current".
    static func currentQueueLabel() -> String {
        guard let getLabel = labelFunction, let label = getLabel(nil) else { return "?" }
        return String(decoding: UnsafeRawBufferPointer(start: label, count: strlen(label)), as: UTF8.self)
    }

    private typealias GetLabel = @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?
    private static let labelFunction: GetLabel? = {
        // Search every loaded library, libdispatch included.
        guard let symbol = dlsym(HostPlatform.searchAllLibraries, "dispatch_queue_get_label") else { return nil }
        return unsafeBitCast(symbol, to: GetLabel.self)
    }()

    /// The kernel's id for the calling thread (Linux TID); on Darwin the pthread id.
    public static func currentThreadID() -> UInt64 {
        HostPlatform.currentThreadID()
    }

    /// The kernel's scheduling state of this process's thread `id` (from `currentThreadID()`),
    /// looked at from another thread: whether a thread seen inside some call is running or
    /// waiting. Nil when the thread is gone or the platform does not tell its state.
    public static func kernelState(ofThread id: UInt64) -> ThreadState? {
        HostPlatform.threads(pid: nil).first { $0.id == Int(id) }?.state
    }
}
