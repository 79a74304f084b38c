import CLabSupport
import Foundation

/// The stacks a hang report carries: taken in this process (the thread an assertion is stuck
/// on, or every thread for a hang watch) or in a child the harness killed, and written the way
/// the experiments print them, one line per set of threads with the same stack:
/// `1 thread (main): in _dispatch_semaphore_wait ← Fetcher.fetchSynchronously (Fetcher.swift:21) ← …`.
public enum HangStacks {
    /// Seconds naming a hang's frames may take where nothing waits on it but the report
    /// (the author's frames are named first, the system's after).
    public static let patientNaming: Seconds = 3 * StackCapture.symbolBudget

    /// At most this many groups in a message; the rest are counted.
    static let groupLimit = 6
    /// Frames of the author's code a hang's line shows, each with its `file:line` where debug
    /// information has one: enough to reach the test from the frame that blocks (a lock taken
    /// twice shows the frame that already holds it too).
    public static let authorDepth = 16

    /// This process's stacks now, every thread but the caller, or only `tid` when given. The
    /// signal handler that answers is installed first (a test binary has none until asked).
    /// On a platform without snapshots the result is empty with a note saying why.
    static func ofThisProcess(
        onlyThread tid: Int? = nil,
        namingBudget: Seconds = StackCapture.symbolBudget
    ) -> StackSnapshot {
        guard clab_stacks_install() == 0 else {
            return .unavailable("this platform gives no in-process stack snapshots (no SIGPROF responder)")
        }
        var raw = StackCapture.captureRaw(pid: getpid())
        if let tid {
            raw.threads = raw.threads.filter { $0.id == tid }
            raw.answers = raw.answers.filter { $0.key == tid }
            if raw.threads.isEmpty { return .unavailable("the stuck thread (tid \(tid)) was not found") }
        } else {
            // Neither the caller nor the harness's other watchers (idle, and not the reader's code).
            let me = KernelThreadID.current()
            let skipped = Set(raw.threads.filter { $0.id == me || watcherNames.contains($0.name) }.map(\.id))
            raw.threads = raw.threads.filter { !skipped.contains($0.id) }
            raw.answers = raw.answers.filter { !skipped.contains($0.key) }
        }
        let named = raw.named(budget: namingBudget)
        return namingMainThread(named, pid: getpid()) ?? named
    }

    /// The kernel names of the harness's watchdog threads.
    static let watcherNames: Set<String> = ["lab.hangwatch", "lab.completes", "lab.poolwatch"]

    /// `snapshot` with the main thread of process `pid` called `main thread`: the kernel names
    /// it after the executable, and its tid is the process id.
    public static func namingMainThread(_ snapshot: StackSnapshot?, pid: Int32) -> StackSnapshot? {
        guard var snapshot else { return nil }
        for index in snapshot.threads.indices where snapshot.threads[index].tid == Int(pid) {
            snapshot.threads[index].thread = "main thread"
        }
        return snapshot
    }

    /// The grouped lines of `snapshot` (its note last, when it has one). The harness's own
    /// frames (the assertion that ran the code, the child trial around it) are left out, so
    /// the chain goes from the blocking call straight to the author's code.
    public static func lines(_ snapshot: StackSnapshot?, depth: Int = authorDepth) -> [String] {
        guard let snapshot else { return ["stacks unavailable: none were taken"] }
        let stacks = snapshot.threads.map { stack in
            var stack = stack
            stack.frames.removeAll(where: isHarnessFrame)
            return stack
        }
        let groups = StackGroup.fold(stacks)
        var lines = groups.prefix(groupLimit).map { $0.summary(depth: depth, placesEveryFrame: true) }
        if groups.count > groupLimit {
            let rest = groups.dropFirst(groupLimit).reduce(0) { $0 + $1.threads.count }
            lines.append("and \(rest) more threads in \(groups.count - groupLimit) other stacks")
        }
        if let note = snapshot.note { lines.append(note) }
        return lines
    }

    /// The grouped stacks of a child the harness killed (at its budget or for a stall), every
    /// thread of it; `["stacks unavailable: …"]` when it was not killed or gave none.
    public static func lines(of run: ChildRun, depth: Int = authorDepth) -> [String] {
        guard let raw = run.rawStacks else { return ["stacks unavailable: the child was not killed by the harness"] }
        // The child is gone and the failure waits for nothing: naming may take its time.
        return lines(namingMainThread(raw.named(budget: patientNaming), pid: run.pid), depth: depth)
    }

    /// `lines` as one block for a failure message: each line on its own line, indented.
    public static func block(_ snapshot: StackSnapshot?, depth: Int = authorDepth) -> String {
        indented(lines(snapshot, depth: depth))
    }

    /// `lines(of:)` as one block for a failure message.
    public static func block(of run: ChildRun, depth: Int = authorDepth) -> String {
        indented(lines(of: run, depth: depth))
    }

    /// A frame of the harness's assertions and child trials (not of a closure the author handed
    /// them, nor of a harness tool the code under test called, such as `MonotonicClock.sleep`).
    static func isHarnessFrame(_ frame: String) -> Bool {
        // A closure, thunk or specialization belongs to the function it is made from.
        var name = StackGroup.withoutCompilerPrefixes(StackGroup.bare(frame))
        if name.hasPrefix("reabstraction thunk helper from ") {
            name.removeFirst("reabstraction thunk helper from ".count)
        }
        if name.hasPrefix("closure") || name.hasPrefix("implicit closure"),
            let holder = name.range(of: " in ", options: .backwards)
        {
            name = String(name[holder.upperBound...])
        }
        if name.hasPrefix("static ") { name.removeFirst("static ".count) }
        if name.hasPrefix("(extension in LabHarness") { return true }
        return [
            "LabHarness.HarnessAssertions.", "LabHarness.ClosureChildTrial.", "LabHarness.CallSites.",
            "LabHarnessXCTest.",
            "LabHarnessTesting.", "LabHarnessRecording.",
        ].contains { name.hasPrefix($0) }
    }

    static func indented(_ lines: [String]) -> String {
        lines.map { "\n    " + $0 }.joined()
    }
}
