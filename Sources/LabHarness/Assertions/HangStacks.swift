import CLabSupport
import Foundation

/// The stacks a hang report carries: taken in this process (the thread an assertion is stuck
/// on, or every thread for a hang watch) or in a child the harness killed, and written the way
/// the experiments print them, one line per set of threads with the same stack:
/// `1 thread (main): in _dispatch_semaphore_wait ← Fetcher.fetchSynchronously (Fetcher.swift:21) ← …`.
public enum HangStacks {
    /// At most this many groups in a message; the rest are counted.
    public static let groupLimit = 6

    /// This process's stacks now, every thread but the caller, or only `tid` when given. The
    /// signal handler that answers is installed first (a test binary has none until asked).
    /// On a platform without snapshots the result is empty with a note saying why.
    public static func ofThisProcess(onlyThread tid: Int? = nil) -> StackSnapshot {
        guard clab_stacks_install() == 0 else { return .unavailable("cannot install the SIGPROF handler") }
        var raw = StackCapture.captureRaw(pid: getpid())
        if let tid {
            raw.threads = raw.threads.filter { $0.id == tid }
            raw.answers = raw.answers.filter { $0.key == tid }
            if raw.threads.isEmpty { return .unavailable("the stuck thread (tid \(tid)) was not found") }
        } else if let me = KernelThreadID.current() {
            raw.threads = raw.threads.filter { $0.id != me }
            raw.answers = raw.answers.filter { $0.key != me }
        }
        var snapshot = raw.named()
        // The kernel names the main thread after the executable; a reader wants "main thread".
        for index in snapshot.threads.indices where snapshot.threads[index].tid == Int(getpid()) {
            snapshot.threads[index].thread = "main thread"
        }
        return snapshot
    }

    /// The grouped lines of `snapshot` (its note last, when it has one).
    public static func lines(_ snapshot: StackSnapshot?, depth: Int = 4) -> [String] {
        guard let snapshot else { return ["stacks unavailable: none were taken"] }
        let groups = StackGroup.fold(snapshot.threads)
        var lines = groups.prefix(groupLimit).map { $0.summary(depth: depth) }
        if groups.count > groupLimit {
            let rest = groups.dropFirst(groupLimit).reduce(0) { $0 + $1.threads.count }
            lines.append("and \(rest) more threads in \(groups.count - groupLimit) other stacks")
        }
        if let note = snapshot.note { lines.append(note) }
        return lines
    }

    /// `lines` as one block for a failure message: each line on its own line, indented.
    public static func block(_ snapshot: StackSnapshot?, depth: Int = 4) -> String {
        lines(snapshot, depth: depth).map { "\n    " + $0 }.joined()
    }
}
