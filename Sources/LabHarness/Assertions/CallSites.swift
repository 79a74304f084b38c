import Foundation
import Synchronization

/// Where each call of a callback came from: the return addresses of the calling thread, taken
/// in the call (cheap: the C library's unwinder, no names), and named only when a failure needs
/// them. `assertCalledExactlyOnce` keeps one per call, so a double call can say which line
/// called the second time (the `return` that is missing after the first).
final class CallSites: Sendable {
    private let stacks = Mutex<[[UInt]]>([])

    /// Notes the calling thread's stack, then `record`s the call, under one lock: two calls at
    /// the same moment from two threads keep each its own place in both lists, so call 2's value
    /// is never told with call 1's line. Call it first thing in the callback.
    @inline(never)
    func note(_ record: () -> Void) {
        let addresses = Thread.callStackReturnAddresses.map { UInt(truncating: $0) }
        stacks.withLock {
            $0.append(addresses)
            record()
        }
    }

    /// `from SloppyLoader.load (Loaders.swift:13) ← Worker.run (Worker.swift:40)` for call
    /// `index` (0-based): the first frames of the caller's own code, named now.
    func place(of index: Int, depth: Int = 2) -> String {
        guard let addresses = stacks.withLock({ index < $0.count ? $0[index] : nil }) else {
            return "from an unknown place"
        }
        let named = StackSymbolizer().name(
            [0: addresses], maps: ProcessMaps.read(pid: getpid()), budget: StackCapture.symbolBudget)
        let frames = (named.frames[0] ?? []).filter { !HangStacks.isHarnessFrame($0) }
        let user = StackGroup(threads: [], frames: frames).userFrames
        guard !user.isEmpty else { return "from a place without debug names" + (named.note.map { " (\($0))" } ?? "") }
        return "from "
            + user.prefix(depth).map { frame in
                StackGroup.short(StackGroup.bare(frame)) + (StackGroup.place(frame).map { " (\($0))" } ?? "")
            }.joined(separator: " ← ")
    }
}
