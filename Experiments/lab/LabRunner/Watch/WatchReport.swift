import Foundation
import LabHarness

/// What `lab watch` says when a limit is passed: the stuck test's name, then every thread of
/// every process below it, grouped as the experiments print deadlock evidence (one line per set
/// of threads with the same stack: the blocking call, then the caller's frames with `file:line`
/// where the binary has debug information), the test's process first and the test's own
/// threads first in it, followed by those threads' whole stacks. Everything goes to stderr.
enum WatchReport {
    /// The stacks of every process below `root` are taken, then the tree is ended; the stacks
    /// are named (`tests`' own threads first) and their lines made, for the caller's title.
    static func stacksThenEnd(
        below root: Int32, tests: [String], note: String?
    ) -> (processes: [(process: ProcessTable.Entry, groups: [StackGroup], note: String?)], shown: String) {
        let raws = rawStacks(of: ProcessTree.descendants(of: root))
        let left = ProcessTree.end(below: root)
        let processes = named(raws, tests: tests)
        return (processes, text(processes, tests: tests, note: note, ended: "the tree was ended", left: left))
    }

    /// Every process of `tree` (the processes below the root), test processes first (they are
    /// the ones the reader wants, and they may go first), with its threads' stacks as taken, not
    /// yet named.
    static func rawStacks(of tree: [ProcessTable.Entry]) -> [(ProcessTable.Entry, RawStacks)] {
        let ordered = tree.filter(isTestProcess) + tree.filter { !isTestProcess($0) }
        return ordered.map { ($0, StackCapture.captureRaw(pid: $0.pid)) }
    }

    /// The stacks named and grouped, `tests`' own threads first.
    static func named(
        _ raws: [(ProcessTable.Entry, RawStacks)], tests: [String]
    ) -> [(process: ProcessTable.Entry, groups: [StackGroup], note: String?)] {
        raws.map { process, raw in
            let snapshot = HangStacks.namingMainThread(raw.named(budget: HangStacks.patientNaming), pid: process.pid)
            return (process, ordering(StackGroup.fold(snapshot?.threads ?? []), tests: tests), snapshot?.note)
        }
    }

    /// The lines that show the stacks: what was ended, then each process and its groups, the
    /// test's own threads in full (every frame, with file:line where known).
    static func text(
        _ processes: [(process: ProcessTable.Entry, groups: [StackGroup], note: String?)], tests: [String],
        note: String?, ended: String, left: [ProcessTable.Entry]
    ) -> String {
        let count = "\(processes.count) process\(processes.count == 1 ? "" : "es")"
        let alive =
            left.isEmpty
            ? "" : " (\(left.count) still alive after 3 s: \(left.map { String($0.pid) }.joined(separator: ", ")))"
        var text = "lab watch: every thread of the \(count) below it, then \(ended)\(alive):\n"
        if let reason = StackCapture.unavailableReason ?? note { text += "  \(reason)\n" }
        for (process, groups, stacksNote) in processes {
            text += "  process \(process.pid): \(shortCommand(process.commandLine))\n"
            for (index, group) in groups.enumerated() {
                text += "    " + group.summary(depth: 4) + "\n"
                if index == 0 && isTestProcess(process) && mentions(group, tests) {
                    for frame in group.frames { text += "        " + frame + "\n" }
                }
            }
            if let stacksNote { text += "    \(stacksNote)\n" }
        }
        return text
    }

    /// What a hang ended, and what the round does next.
    struct HangEnd {
        var hung: [WatchRound.HungTest] = []
        /// Late tests not called hung (see `hang`).
        var retried: [String] = []
        /// Whether the whole tree was ended (the round drains and ends), or only the hung tests'
        /// processes (SwiftPM goes on with the others).
        var treeEnded = true
    }

    /// Tests that ran past the timeout: named, their tree's stacks printed, then ended.
    ///
    /// In `--parallel` each XCTest test has a process of its own, found by its command line, and
    /// only that process's stacks speak for it; another process's stacks are never pinned on it.
    /// Only the hung tests' processes are ended (SIGKILL, which SwiftPM 6.3 does not report; a
    /// report of a signal would leave the verdict `hung`), and SwiftPM goes on, so the tests
    /// running beside them neither die nor run again.
    /// A late test whose process has ended is not hung: its verdict is still in SwiftPM's hands
    /// (which waits for the end of the output of a process whose pipe a hung test inherited), and
    /// comes once the hung one is ended; that had called a passing test hung with a spinning
    /// neighbour's stack. A late test whose process shows no frame of the test (still starting
    /// on a loaded machine, or ending) gets its timeout once more, and is hung if late again.
    ///
    /// Otherwise (a serial run, or Swift Testing's tests, which share one process) the tree is
    /// ended: the hung tests end as `hung`, and the others running at the time run again. A
    /// Swift Testing test printed by its display name is found in the stacks by its function,
    /// which the test list names (`lister`), once the tree is ended.
    static func hang(
        _ late: [String], since started: [String: Seconds], below root: Int32, options: WatchOptions,
        note: String?, parallel: Bool, lister: WatchCommand.TestLister?, progress: inout TestProgress
    ) -> HangEnd {
        let now = MonotonicClock.now()
        let ownProcesses = parallel && late.allSatisfy(isXCTestKey)
        // A test process that trapped runs the Swift runtime's backtracer (`swift-backtrace`,
        // its child) before it dies, which under load took longer than a short timeout: its
        // test crashed, and SwiftPM's crash line follows. Not hung: its clock starts again.
        let tree = ProcessTree.descendants(of: root)
        let crashing = Set(tree.filter { isBacktracer(commandLine: $0.commandLine) }.map(\.parent))
        let owners = Dictionary(
            tree.compactMap { process in WatchRound.parallelTest(of: process).map { ($0, process.pid) } },
            uniquingKeysWith: { first, _ in first })
        let backtracing = late.filter { key in
            !crashing.isEmpty && (!ownProcesses || owners[key].map(crashing.contains) == true)
        }
        if !backtracing.isEmpty {
            for key in backtracing { progress.restart(key, at: now) }
            let text = backtracing.map { key in
                "\(progress.named(key)) \(ran(key, clock: started[key]!, now: now, progress).text)"
            }.joined(separator: "; ")
            Terminal.writeError(
                "\nlab watch: \(text) (--test-timeout \(Format.seconds(options.testTimeout))), but its process "
                    + "crashed and is writing its backtrace (swift-backtrace): not hung, its timeout starts again\n")
        }
        let keys = late.filter { !backtracing.contains($0) }
        guard !keys.isEmpty else { return HangEnd(hung: [], retried: [], treeEnded: false) }
        let raws = rawStacks(of: tree)
        // What to look for in the stacks: the test's function (`f()`), for a display name too.
        var function: [String: String] = [:]
        for key in keys where key.hasPrefix("\"") {
            function[key] = lister?.listing?.id(of: key).map(TestList.key(of:))
        }
        let searched = keys.map { function[$0] ?? $0 }
        let processes = named(raws, tests: searched)
        let groups = processes.flatMap(\.groups)
        var result = HangEnd()
        // Late but not hung: a process that has ended, or one with no frame of the test yet
        // (`restart`: it gets its timeout once more).
        var spared: [(key: String, restart: Bool, ended: Bool)] = []
        var hungProcesses: [Int32] = []
        let stacksTaken = note == nil && StackCapture.unavailableReason == nil
        for key in keys {
            let ownProcess = processes.first { WatchRound.parallelTest(of: $0.process) == key }
            let own = (ownProcess?.groups ?? groups).first { mentions($0, [function[key] ?? key]) }
            if parallel && ownProcess == nil && isXCTestKey(key) {
                spared.append((key, false, true))
                continue
            }
            // No test process left below SwiftPM: the test's has ended (a crash's, before SwiftPM
            // says so: under `stress --cpu 4` one was called hung so, on SwiftPM's own stack). Its
            // timeout starts again once; then it is left to SwiftPM's verdict, or runs again.
            let testProcess = ownProcess ?? processes.first { isTestProcess($0.process) }
            if testProcess == nil && !ownProcesses {
                spared.append((key, progress.mayRetry(key), true))
                continue
            }
            // No frame of the test in its process's stacks: it may have just ended (under `stress
            // --cpu 4`, a test of 105 ms was called hung at 101 ms so, its verdict not yet read),
            // or its process be trapping (a process that traps blocks signals while it starts its
            // backtracer, so its threads do not answer; a Swift Testing crash was called hung so,
            // before `swift-backtrace` showed). Its timeout starts again, once.
            if own == nil && (ownProcess != nil || stacksTaken) && progress.mayRetry(key) {
                spared.append((key, true, false))
                continue
            }
            // Its own threads; else its own process's first; else the first of a test process
            // (one test process: not --parallel); else the first there is.
            let fallback =
                ownProcess.map { $0.groups.first }
                ?? processes.first { isTestProcess($0.process) }?.groups.first ?? groups.first
            let stuckAt = (own ?? fallback)?.summary(depth: 4) ?? "no stacks were taken"
            let seconds = ran(key, clock: started[key]!, now: now, progress).seconds
            result.hung.append(WatchRound.HungTest(key: key, seconds: seconds, stuckAt: stuckAt))
            if let pid = ownProcess?.process.pid { hungProcesses.append(pid) }
        }
        // Ended for a hang: the hung test's process with `--parallel`, else the tree.
        result.treeEnded = !ownProcesses && !result.hung.isEmpty
        let limit = "(--test-timeout \(Format.seconds(options.testTimeout)))"
        let hungText = result.hung.map { item in
            "\(progress.named(item.key)) \(ran(item.key, clock: started[item.key]!, now: now, progress).text)"
        }
        let sparedText = spared.map { item in
            let why = item.ended ? "but its process has ended" : "with no frame of the test in its process"
            let next =
                result.treeEnded
                ? "it runs again" : item.restart ? "its timeout starts again" : "not hung, SwiftPM gives its verdict"
            let time = ran(item.key, clock: started[item.key]!, now: now, progress).text
            return "\(progress.named(item.key)) \(time) \(why) \(limit): \(next)"
        }
        let title = ([hungText.isEmpty ? nil : hungText.joined(separator: "; ") + " \(limit): hung"] + sparedText)
            .compactMap { $0 }.joined(separator: "; ")
        // Marked hung before their processes end.
        for item in result.hung { progress.mark(item.key, .hung) }
        result.retried = spared.map(\.key)
        guard ownProcesses || !result.treeEnded else {
            let left = ProcessTree.end(below: root)
            let shown = text(processes, tests: searched, note: note, ended: "the tree was ended", left: left)
            Terminal.writeError("\nlab watch: \(title)\n" + shown)
            // The other tests, and those starting before the tree is gone, run again.
            progress.treeEnded()
            progress.forgetProvisional()
            return result
        }
        var alive: [ProcessTable.Entry] = []
        for pid in hungProcesses {
            alive += ProcessTree.end(below: pid)
            _ = kill(pid, SIGKILL)
        }
        for item in spared {
            // No frame of the test yet: a whole timeout more. Its process ended: SwiftPM prints
            // its verdict once the output's last holder (a hung test) has ended.
            if item.restart { progress.restart(item.key, at: now) } else { progress.forgetRunning(item.key) }
        }
        let ended =
            hungProcesses.isEmpty
            ? "nothing was ended"
            : hungProcesses.count == 1
                ? "the hung test's process was ended, the other tests go on"
                : "the hung tests' processes were ended, the other tests go on"
        Terminal.writeError(
            "\nlab watch: \(title)\n" + text(processes, tests: searched, note: note, ended: ended, left: alive))
        return result
    }

    /// How long late test `key` has run, for its report: since it started, and, when its clock
    /// (`clock`, `TestProgress.running`) started again later, why and when: `has run for 9.02 s
    /// (its 16th test case ended 2.01 s ago)` for a parameterized test, whose clock starts again
    /// as each case ends, and `has run for 6.05 s (its timeout started again 3.02 s ago)` for a
    /// test given a second chance. Counted from its clock, a test spared once was reported hung
    /// after about one timeout, when it had run two.
    static func ran(_ key: String, clock: Seconds, now: Seconds, _ progress: TestProgress) -> (
        seconds: Seconds, text: String
    ) {
        let start = min(progress.started[key] ?? clock, clock)
        let text = "has run for \(Format.seconds(now - start))"
        guard clock > start else { return (now - start, text) }
        let ago = Format.seconds(now - clock)
        if !progress.timeoutRestarted.contains(key), let cases = progress.casesEnded[key] {
            return (now - start, text + " (its \(ordinal(cases)) test case ended \(ago) ago)")
        }
        return (now - start, text + " (its timeout started again \(ago) ago)")
    }

    /// `1st`, `2nd`, `3rd`, `4th`, `11th`, `21st`.
    static func ordinal(_ n: Int) -> String {
        let suffix =
            (11...13).contains(n % 100) ? "th" : n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th"
        return "\(n)\(suffix)"
    }

    /// Whether `key` is an XCTest test's (`Class.test`), which `--parallel` runs in a process of
    /// its own; Swift Testing's are `f()`, `f(x:)` or a quoted display name (`"Adds two numbers"`,
    /// swift-testing's `HumanReadableOutputRecorder`), and share one process.
    static func isXCTestKey(_ key: String) -> Bool { !key.hasSuffix(")") && !key.hasPrefix("\"") }

    /// The Swift runtime's crash backtracer, which a trapping process starts (`swift-backtrace
    /// --unwind precise …`, from the toolchain's `libexec`).
    static func isBacktracer(commandLine: String) -> Bool {
        runs(commandLine) { $0 == "swift-backtrace" || $0.hasSuffix("/swift-backtrace") }
    }

    /// The command went quiet: its tree's stacks, then the tree ended. Inside XCTest class
    /// `inClass` (`swift test`, none of its tests running), the stack that shows the class's own
    /// `setUp()` or `tearDown()` comes first, and says which held it. Inside Swift Testing suite
    /// `inSuite`, a thread in a trait's scope (`TestScoping.provideScope`) comes first, and only
    /// such a thread says the suite held the run: its tests may also wait for a pool that tests
    /// before them left blocked, which is not the suite's doing.
    static func quiet(
        below root: Int32, options: WatchOptions, note: String?, in inClass: String?, inSuite: String? = nil
    ) -> WatchRound.StuckClass? {
        let quiet = "no output and no CPU use for \(Format.seconds(options.quietTimeout)) (--quiet-timeout)"
        let methods = ["setUp", "tearDown"]
        let searched =
            inSuite != nil ? ["provideScope"] : inClass.map { name in methods.map { "\(name).\($0)" } } ?? []
        let (processes, shown) = stacksThenEnd(below: root, tests: searched, note: note)
        let groups = processes.first { isTestProcess($0.process) }?.groups ?? processes.flatMap(\.groups)
        let own = groups.first { mentions($0, searched) }
        var stuck: WatchRound.StuckClass?
        if let inSuite, let own {
            stuck = WatchRound.StuckClass(
                name: inSuite, swiftTesting: true, seconds: options.quietTimeout, method: nil,
                stuckAt: own.summary(depth: 4))
        } else if let inClass {
            let method = own.flatMap { group in methods.first { mentions(group, ["\(inClass).\($0)"]) } }
            stuck = WatchRound.StuckClass(
                name: inClass, seconds: options.quietTimeout, method: method.map { $0 + "()" },
                stuckAt: (own ?? groups.first)?.summary(depth: 4) ?? "no stacks were taken")
        }
        guard let stuck else {
            Terminal.writeError("\nlab watch: \(quiet): the command is stuck\n" + shown)
            return nil
        }
        Terminal.writeError("\nlab watch: \(quiet) in \(stuck.title), \(stuck.held): stuck\n" + shown)
        return stuck
    }

    /// A test process (`TestBundleLocation.isTestProcess`: a test binary, macOS's `xctest` tool,
    /// or SwiftPM's `swiftpm-testing-helper`): the program, its path read up to the first option
    /// (a path may hold spaces).
    static func isTestProcess(_ process: ProcessTable.Entry) -> Bool { isTestProcess(commandLine: process.commandLine) }

    static func isTestProcess(commandLine: String) -> Bool { runs(commandLine, TestBundleLocation.isTestProcess) }

    /// Whether the program of `commandLine` is one `isProgram` accepts: its path read word by
    /// word up to the first option, since the table joins the arguments with spaces and a path
    /// may hold spaces of its own.
    static func runs(_ commandLine: String, _ isProgram: (String) -> Bool) -> Bool {
        var program = ""
        for word in commandLine.split(separator: " ") {
            if word.hasPrefix("-") { break }
            program += program.isEmpty ? word : " " + word
            if isProgram(program) { return true }
        }
        return false
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
    /// names `OrderTests.test2()`; `firstPasses()` names `firstPasses()`; `Module.Suite/f()` names
    /// `Module.Suite.f()`).
    static func mentions(_ group: StackGroup, _ tests: [String]) -> Bool {
        tests.contains { numbered in
            // An id of Swift Testing's (`Module.Suite/f()`) names `Module.Suite.f()`; an XCTest
            // namesake in turn (`FooTests.testX#2`) is `FooTests.testX`.
            let key = TestProgress.withoutInstance(numbered)
            let function = (key.hasSuffix(")") ? String(key[..<(key.firstIndex(of: "(") ?? key.endIndex)]) : key)
                .replacingOccurrences(of: "/", with: ".")
            return group.frames.contains { $0.contains(function + "(") }
        }
    }

    /// A command line cut to 120 characters.
    static func shortCommand(_ line: String) -> String {
        line.count <= 120 ? line : String(line.prefix(117)) + "..."
    }
}
