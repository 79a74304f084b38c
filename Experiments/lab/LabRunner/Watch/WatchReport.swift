import Foundation
import LabHarness

/// What `lab watch` says when a limit is passed: the stuck test's name, then every thread of
/// every process below it, grouped as the experiments print deadlock evidence (one line per set
/// of threads with the same stack: the blocking call, then the caller's frames with `file:line`
/// where the binary has debug information), the test's process first and the test's own
/// threads first in it, followed by those threads' whole stacks. Everything goes to stderr.
enum WatchReport {
    /// The stacks of every process below `root` are taken, the tree is ended, and the stacks
    /// are named and printed under `title`. Returns each process's grouped stacks, test
    /// processes first.
    @discardableResult
    static func stacksThenEnd(
        below root: Int32, title: String, tests: [String], note: String?
    ) -> [(process: ProcessTable.Entry, groups: [StackGroup])] {
        let taken = stacksAndEnd(below: root, tests: tests, note: note)
        Terminal.writeError("\nlab watch: \(title)\n" + taken.text)
        return taken.processes
    }

    /// The tree's stacks, grouped, and the text that shows them, once the tree was ended; for a
    /// caller whose title depends on what the stacks show.
    static func stacksAndEnd(
        below root: Int32, tests: [String], note: String?
    ) -> (processes: [(process: ProcessTable.Entry, groups: [StackGroup])], text: String) {
        let tree = ProcessTree.descendants(of: root)
        // The test processes first: they are the ones the reader wants, and they may go first.
        let ordered = tree.filter(isTestProcess) + tree.filter { !isTestProcess($0) }
        var raws: [(ProcessTable.Entry, RawStacks)] = []
        for process in ordered { raws.append((process, StackCapture.captureRaw(pid: process.pid))) }
        let left = ProcessTree.end(below: root)
        var text =
            "lab watch: every thread of the \(ordered.count) process\(ordered.count == 1 ? "" : "es") below it, then the tree was ended"
            + (left.isEmpty
                ? "" : " (\(left.count) still alive after 3 s: \(left.map { String($0.pid) }.joined(separator: ", ")))")
            + ":\n"
        if let reason = StackCapture.unavailableReason ?? note { text += "  \(reason)\n" }
        var result: [(process: ProcessTable.Entry, groups: [StackGroup])] = []
        for (process, raw) in raws {
            let snapshot = HangStacks.namingMainThread(raw.named(budget: HangStacks.patientNaming), pid: process.pid)
            let groups = ordering(StackGroup.fold(snapshot?.threads ?? []), tests: tests)
            result.append((process, groups))
            text += "  process \(process.pid): \(shortCommand(process.commandLine))\n"
            for (index, group) in groups.enumerated() {
                text += "    " + group.summary(depth: 4) + "\n"
                // The test's own threads in full: every frame, with file:line where known.
                if index == 0 && isTestProcess(process) && mentions(group, tests) {
                    for frame in group.frames { text += "        " + frame + "\n" }
                }
            }
            if let note = snapshot?.note { text += "    \(note)\n" }
        }
        return (result, text)
    }

    /// Tests that ran past the timeout: named, their tree's stacks printed, the tree ended. The
    /// hung tests end as `hung`; others running at the time are forgotten, to run again.
    ///
    /// In `--parallel` each XCTest test has a process of its own, found by its command line, and
    /// only that process's stacks speak for it; another process's stacks are never pinned on it.
    /// A test whose process has ended is not hung: its verdict is still in SwiftPM's hands (which
    /// waits for the end of the output of a process whose pipe a hung test inherited), so it runs
    /// again (`retried`); that had called a passing test hung with a spinning neighbour's stack.
    /// A test whose process shows no frame of the test (still starting on a loaded machine, or
    /// ending) runs again once, and is hung if it is late again.
    static func hang(
        _ keys: [String], since started: [String: Seconds], below root: Int32, options: WatchOptions,
        note: String?, parallel: Bool, progress: inout TestProgress
    ) -> (hung: [WatchRound.HungTest], retried: [String]) {
        let now = MonotonicClock.now()
        let taken = stacksAndEnd(below: root, tests: keys, note: note)
        let groups = taken.processes.flatMap(\.groups)
        var hung: [WatchRound.HungTest] = []
        var retried: [(key: String, why: String)] = []
        for key in keys {
            let ownProcess = taken.processes.first { WatchRound.parallelTest(of: $0.process) == key }
            let own = (ownProcess?.groups ?? groups).first { mentions($0, [key]) }
            // An XCTest key (`Class.test`; Swift Testing's end in `)` and have no process).
            if parallel && ownProcess == nil && !key.hasSuffix(")") {
                retried.append((key, "but its process has ended"))
                continue
            }
            if ownProcess != nil && own == nil && progress.mayRetry(key) {
                retried.append((key, "with no frame of the test in its process"))
                continue
            }
            // Its own threads; else its own process's first; else the first of a test process
            // (one test process: not --parallel); else the first there is.
            let fallback =
                ownProcess.map { $0.groups.first }
                ?? taken.processes.first { isTestProcess($0.process) }?.groups.first ?? groups.first
            let stuckAt = (own ?? fallback)?.summary(depth: 4) ?? "no stacks were taken"
            hung.append(WatchRound.HungTest(key: key, seconds: now - started[key]!, stuckAt: stuckAt))
        }
        let limit = "(--test-timeout \(Format.seconds(options.testTimeout)))"
        let hungText = hung.map { "\($0.key) has run for \(Format.seconds($0.seconds))" }
        let retriedText = retried.map { "\($0.key) has run for \(Format.seconds(now - started[$0.key]!)) \($0.why)" }
        let title = [
            hungText.isEmpty ? nil : hungText.joined(separator: "; ") + " \(limit): hung",
            retriedText.isEmpty ? nil : retriedText.joined(separator: "; ") + " \(limit): it runs again",
        ].compactMap { $0 }.joined(separator: "; ")
        Terminal.writeError("\nlab watch: \(title)\n" + taken.text)
        let again = retried.map(\.key)
        for key in progress.running.keys where !keys.contains(key) || again.contains(key) {
            progress.forgetRunning(key)
        }
        for item in hung { progress.mark(item.key, .hung) }
        progress.forgetProvisional()
        return (hung, again)
    }

    /// The command went quiet: its tree's stacks, then the tree ended.
    static func quiet(below root: Int32, options: WatchOptions, note: String?) {
        stacksThenEnd(
            below: root,
            title:
                "no output and no CPU use for \(Format.seconds(options.quietTimeout)) (--quiet-timeout): the command is stuck",
            tests: [], note: note)
    }

    /// A test binary: XCTest's `Package.xctest` or SwiftPM's `swiftpm-testing-helper`.
    static func isTestProcess(_ process: ProcessTable.Entry) -> Bool {
        let program = process.commandLine.split(separator: " ").first.map(String.init) ?? ""
        return program.hasSuffix(".xctest") || program.hasSuffix("swiftpm-testing-helper")
    }

    /// Groups with a frame of one of `tests` first, then those with code of the program's own,
    /// then the rest; each set in the order `fold` gave.
    static func ordering(_ groups: [StackGroup], tests: [String]) -> [StackGroup] {
        let own = groups.filter { mentions($0, tests) }
        let user = groups.filter { !mentions($0, tests) && !$0.userFrames.isEmpty }
        let rest = groups.filter { !mentions($0, tests) && $0.userFrames.isEmpty }
        return own + user + rest
    }

    /// Whether a frame of `group` is the test function of one of `tests` (`OrderTests.test2`
    /// names `OrderTests.test2()`; `firstPasses()` names `firstPasses()`).
    static func mentions(_ group: StackGroup, _ tests: [String]) -> Bool {
        tests.contains { key in
            let function = key.hasSuffix(")") ? String(key[..<(key.firstIndex(of: "(") ?? key.endIndex)]) : key
            return group.frames.contains { $0.contains(function + "(") }
        }
    }

    /// A command line cut to 120 characters.
    static func shortCommand(_ line: String) -> String {
        line.count <= 120 ? line : String(line.prefix(117)) + "..."
    }
}
