import CoreFoundation
import Foundation

/// What the lab asks of the operating system beyond what Foundation and Dispatch give alike on
/// every platform: the few calls whose spelling or existence differs between Linux and Darwin.
///
/// `HostPlatform` is the one conformer: it calls the C shim (`Sources/CLabSupport`), which holds
/// each operating system's implementation under one C signature, so a Mac user who finds a
/// Darwin difference reads and fixes C compiled against Darwin's own headers (and checked
/// against them here by `.ci/darwin-headers`). Requirements are static: the clock's sleep sits
/// in hot loops, and a type chosen at compile time costs nothing to call.
protocol PlatformSeam {
    /// Sleeps the calling thread until the monotonic clock reaches `deadline`, through signals.
    static func sleep(untilMonotonic deadline: Seconds)
    /// Sleeps the calling thread for `duration` seconds, through signals.
    static func sleep(forSeconds duration: Seconds)
    /// User plus system CPU time of the whole process.
    static func processCPUTime() -> Seconds
    /// Every process the kernel shows this one; empty where it shows none.
    static func processes() -> [ProcessTable.Entry]
    /// How long the calling thread has been on a CPU and waiting in a run queue for one;
    /// `nil` where the kernel does not keep it.
    static func currentThreadRunnableTime() -> (onCPU: Seconds, waiting: Seconds)?
    /// The kernel's id for the calling thread.
    static func currentThreadID() -> UInt64
    /// The handle that makes `dlsym` search every loaded library (C's `RTLD_DEFAULT`, which
    /// Swift does not import).
    static var searchAllLibraries: UnsafeMutableRawPointer? { get }
    /// The run loop's default mode as `CFRunLoopPerformBlock` takes it.
    static var defaultRunLoopMode: CFTypeRef { get }
    /// The number of threads of process `pid` (this process when `nil`); `nil` when the
    /// process is gone or the platform cannot look at it.
    static func threadCount(pid: Int32?) -> Int?
    /// Every thread of process `pid` (this process when `nil`) with its name and state; empty
    /// when the process is gone or the platform cannot look at it.
    static func threads(pid: Int32?) -> [ThreadInfo]
    /// The path of the image (executable, library, or a loaded bundle's binary) holding
    /// `address`, as the dynamic linker knows it (`dladdr`); `nil` when it cannot tell.
    static func imagePath(containing address: UnsafeRawPointer) -> String?
    /// The running executable's absolute path as the kernel knows it, or `nil` where it has
    /// no cheap answer (callers then ask `Bundle` and `argv[0]`).
    static func executablePathFromKernel() -> String?
    /// Arranges for this child process to die when its parent `parent` does, so a trial that
    /// hangs on purpose never outlives a parent that was killed.
    static func dieWithParent(_ parent: Int32)
    /// Runs `body` inside an autorelease pool of its own, drained when it returns (Darwin's
    /// Objective-C runtime; on Linux only counted): what `body` autoreleased is let go then,
    /// not when the caller's pool drains.
    static func withAutoreleasePool<T>(_ body: () throws -> T) rethrows -> T
}
