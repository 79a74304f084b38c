import CLabSupport
import Foundation
import Synchronization

/// A POSIX thread that can be joined: `join()` returns once the thread has really ended, so a
/// caller that joined every thread it started can count the process's threads and find none
/// of them left.
///
/// Foundation's `Thread` has no join; waiting for a signal sent at the end of its body still
/// leaves the kernel thread alive for a moment (longer on a loaded machine), which is too weak
/// for a component that promises "no thread left after stop". The thread names itself in the
/// kernel first thing (at most 15 bytes on Linux), so `ThreadCensus` and gdb can see whose it is.
///
/// `pthread_t` and the start routine's signature differ between Glibc and Darwin, so the thread
/// itself is started and joined in the C shim (`clab_thread_start`, `clab_thread_join`).
final class JoinableThread: Sendable {
    /// The closure the new thread runs, handed to `pthread_create` as its one argument.
    private final class Start {
        let name: String
        let body: @Sendable () -> Void
        let finished: JoinableThread
        init(name: String, body: @escaping @Sendable () -> Void, finished: JoinableThread) {
            self.name = name
            self.body = body
            self.finished = finished
        }
        func run() {
            _ = clab_set_current_thread_name(name)
            body()
            finished.ended.store(true, ordering: .releasing)
        }
    }

    // Only `join()` reads the handle after `init`, and `join()` runs once (guarded by `joined`).
    nonisolated(unsafe) private var handle: OpaquePointer?
    private let ended = Atomic<Bool>(false)
    private let joined = Atomic<Bool>(false)

    /// Starts a thread named `name` running `body`; `nil` when the system refuses a thread.
    init?(name: String, _ body: @escaping @Sendable () -> Void) {
        let start = Unmanaged.passRetained(Start(name: name, body: body, finished: self)).toOpaque()
        let status = clab_thread_start(
            &handle,
            { raw in
                Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue().run()
            }, start)
        guard status == 0 else {
            Unmanaged<Start>.fromOpaque(start).release()
            return nil
        }
    }

    /// Whether the thread's body has returned (it may still be a moment from ending: `join()`).
    var hasEnded: Bool { ended.load(ordering: .acquiring) }

    /// Waits until the thread has ended. Call it once the body is known to return soon: there
    /// is no timeout. A second call does nothing.
    func join() {
        guard !joined.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if let handle { _ = clab_thread_join(handle) }
    }
}
