import Foundation
import LabHarness

/// `lab watch [--test-timeout 60s] [--quiet-timeout 5m] -- COMMAND [ARGS...]`: runs a command
/// with its output passed through, and when it hangs, says where and ends it.
///
/// - `swift test`: a test that runs past `--test-timeout` is hung: its name, every thread of
///   every process below `lab watch` (grouped, the test's own first), the tree ended; then the
///   tests that had not run yet run (`swift test --skip-build --filter ...` of the tests
///   `swift test list` names that had not ended), and so on after each hang or crash, so every
///   test is reported once. With `--parallel`, an XCTest test's own process is ended instead of
///   the tree, and SwiftPM goes on. Exit 1 when a test failed, crashed or hung.
/// - anything else, and `swift test` between tests: no output and no CPU use for
///   `--quiet-timeout`: the same stacks, the tree ended, exit 124. In `swift test`, inside an
///   XCTest class with none of its tests running (its `class func setUp()` or `tearDown()`),
///   the class is named, its tests that had not run are `not run`, and the others run after it.
/// Ctrl-C, SIGTERM, SIGHUP: the tree ended, exit 130. A killed `lab watch` is noticed by the
/// keeper between it and the command (`WatchKeeper`), which ends the tree.
public enum WatchCommand {
    public static let usage = """
        usage: lab watch [--test-timeout 60s] [--quiet-timeout 5m] -- COMMAND [ARGS...]
          run COMMAND in a process tree of its own, its output passed through; when it hangs, print
          every thread's stack of every process in the tree, then end the tree.
          `swift test`: a test running longer than --test-timeout (default 60s) is hung; it is named
          with the stacks, the tree is ended (with --parallel, only the test's process), and the
          tests that had not run yet run after it, so every test is reported once. Any command:
          no output and no CPU use for --quiet-timeout (default 5m) ends it, exit 124; in
          `swift test`, when that is inside an XCTest class none of whose tests runs (its class
          setUp or tearDown) or a Swift Testing suite held by its traits, the class or suite is
          named, its tests do not run, and the rest run after it.
          in CI: lab watch --test-timeout 120s -- swift test

          --test-timeout D   how long one test may run (100ms to 24h: 500ms, 60s, 5m, 1h); a
                             parameterized Swift Testing test's clock starts again as each case ends;
                             only when COMMAND is `swift test` itself (else it says so, and is ignored)
          --quiet-timeout D  how long the command may print nothing and use no CPU
          --help             print this help and exit

        exit status: the command's; for swift test 1 when a test failed, crashed or hung;
        124 quiet too long, 64 bad usage, 71 the command could not be run, 73 an --xunit-output file
        could not be created, 74 output could not be written, 130 interrupted

        """

    /// The library that makes the watched processes answer requests for stacks: beside `lab`.
    static let responderLibrary = "libLabStackResponder.so"

    public static func main(_ arguments: [String]) -> Int32 {
        let separator = arguments.firstIndex(of: "--") ?? arguments.endIndex
        if arguments[..<separator].contains("--help") || arguments[..<separator].contains("-h") {
            Terminal.writeOutput(usage)
            return 0
        }
        let options: WatchOptions
        switch WatchOptions.parse(arguments) {
        case .success(let parsed): options = parsed
        case .failure(let problem):
            Terminal.writeError("lab watch: \(problem.message)\n")
            return 64
        }
        guard WatchSpawn.resolve(options.command[0]) != nil else {
            Terminal.writeError("lab watch: command not found: '\(UsageError.echo(options.command[0]))'\n")
            return 64
        }
        let interrupt = InterruptHandler.install()
        let keeper = ChildProcess.currentExecutablePath()
        let (environment, note) = watchedEnvironment(keeper: keeper)
        var round = WatchRound(
            command: options.command, environment: environment, options: options, readsTests: false,
            parallel: false, interrupt: interrupt, keeper: keeper, stackNote: note)
        guard let invocation = SwiftTestInvocation(options.command) else {
            // Only `swift test`'s test lines are followed: a timeout given for any other command
            // (`make test`, a script that calls `swift test`, `swift test list`) would time nothing.
            if options.testTimeoutGiven {
                Terminal.writeError(
                    "lab watch: --test-timeout is ignored: it times the tests of `swift test` (or `swift-test`) run "
                        + "as the command itself; this command is watched by --quiet-timeout only\n")
            }
            var progress = TestProgress()
            let end: WatchRound.End
            do { end = try round.run(&progress) } catch {
                Terminal.writeError("lab watch: \(error)\n")
                return 71
            }
            if end.interrupted {
                Terminal.writeError("lab watch: interrupted; the command's processes were ended\n"); return 130
            }
            if end.quiet { return 124 }
            return end.status ?? 1
        }
        round.readsTests = true
        round.parallel = invocation.parallel
        let help = help(for: invocation)
        round.eventStream = eventStream(for: invocation, help: help)
        round.lister = TestLister(
            invocation, swiftTestingByID: round.eventStream != nil,
            ignoresLock: help?.stdout.contains(SwiftTestInvocation.ignoreLock) ?? false)
        return runTests(invocation, round: round)
    }

    /// `swift test --help-hidden`, which shows the options this SwiftPM takes: asked again when
    /// the tool crashed (`WatchSpawn.runAgainIfCrashed`); `nil` when it could not be run.
    static func help(for invocation: SwiftTestInvocation) -> ChildRun? {
        guard let program = WatchSpawn.resolve(invocation.helpCommand[0]) else { return nil }
        return try? WatchSpawn.runAgainIfCrashed(
            ChildSpec(executable: program, arguments: Array(invocation.helpCommand.dropFirst()), budget: 30))
    }

    /// Where Swift Testing is to write its event stream, and the options for it, when this
    /// SwiftPM takes them (its `help` shows them) and the user did not ask for one of their own.
    /// Its human-readable lines name a test by its function alone, so two suites' `check()`
    /// read as one test (the second started while the first ran, the first's end ended both,
    /// and a hang of the second was never timed); the event stream names each by its id.
    /// Without it, says so: a run read from the printed lines alone is told apart from one
    /// read by id.
    static func eventStream(
        for invocation: SwiftTestInvocation, help: ChildRun?
    ) -> (path: String, options: [String])? {
        let readsLines =
            ": Swift Testing's tests are read from the lines they print, where two tests of one function name "
            + "read as one\n"
        if invocation.givesEventStream {
            Terminal.writeError("lab watch: the command asks for an event stream of its own" + readsLines)
            return nil
        }
        let path = temporaryFile("lab-watch-events")
        if let help, help.outcome == .completed,
            let options = SwiftTestInvocation.eventStreamOptions(help: help.stdout, path: path)
        {
            return (path, options)
        }
        let why =
            if let help, help.outcome == .completed { "shows no event-stream option" } else {
                help.map(\.evidence) ?? "could not be run"
            }
        Terminal.writeError("lab watch: `\(invocation.helpCommand.joined(separator: " "))` \(why)" + readsLines)
        return nil
    }

    /// A path for an event stream of this process's own, in the temporary directory.
    static func temporaryFile(_ prefix: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent(
            "\(prefix)-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).jsonl"
        ).path
    }

    /// The environment of the watched tree: this one's, with the stack responder preloaded and
    /// switched on, and without the lab's own parent handshake (the command is not a lab child).
    /// Also says why stacks will be missing, when that is known now.
    static func watchedEnvironment(keeper: String) -> ([String: String], String?) {
        var environment = ProcessInfo.processInfo.environment
        environment[ChildLifeline.parentVariable] = nil
        environment["SWIFT_BACKTRACE"] = backtraceSetting(environment["SWIFT_BACKTRACE"])
        guard environment["LAB_STACKS"] != "off" else { return (environment, "stacks unavailable: LAB_STACKS=off") }
        environment["LAB_STACKS"] = "on"
        guard let variable = HostPlatform.preloadVariable else { return (environment, nil) }
        let library = ((keeper as NSString).deletingLastPathComponent as NSString).appendingPathComponent(
            responderLibrary)
        guard FileManager.default.fileExists(atPath: library) else {
            return (
                environment,
                "stacks unavailable: \(library) is missing (swift build builds it; lab watch preloads it so the processes answer)"
            )
        }
        environment[variable] = [library, environment[variable]].compactMap { $0 }.filter { !$0.isEmpty }.joined(
            separator: ":")
        return (environment, nil)
    }

    /// `SWIFT_BACKTRACE` for the watched tree: the user's, with `enable=yes` when it does not
    /// say `enable`. Swift's backtracer writes the crash report that tells which of the tests
    /// side by side in a process crashed (`CrashedTest`), and where; it is on by default on Linux, and on
    /// macOS only for a terminal ("On macOS, this defaults to tty", `docs/Backtracing.rst` in
    /// swiftlang/swift), which the watched tree's output, a pipe, is not.
    static func backtraceSetting(_ user: String?) -> String {
        guard let user, !user.isEmpty else { return "enable=yes" }
        let keys = user.split(separator: ",").map {
            $0.split(separator: "=").first?.trimmingCharacters(in: .whitespaces)
        }
        return keys.contains("enable") ? user : user + ",enable=yes"
    }

    /// Rounds of `swift test` until every test ran once: after a hang or a crash, the tests
    /// that had not ended run in a new round.
    static func runTests(_ invocation: SwiftTestInvocation, round first: WatchRound) -> Int32 {
        var round = first
        var progress = TestProgress(swiftTestingFromEvents: first.eventStream != nil)
        progress.namesakesInTurn = !invocation.parallel
        var hung: [WatchRound.HungTest] = []
        // Each XCTest class found held in its class setUp() or tearDown(), with its tests that did not run.
        var stuckClasses: [(WatchRound.StuckClass, [String])] = []
        var list: TestList.Listing?
        var failedStatus: Int32 = 0
        var rounds = 0
        var crashesBefore = 0
        var deathsBefore = 0
        // A round was disrupted (a hang, a crash, a process that died between tests): once the
        // tests to run alone have, every listed test that has not ended runs.
        var owesFullRerun = false
        // Tests left out of the last rerun, which had as many as its filters' length allows
        // (`SwiftTestInvocation.oneRun(of:)`): they run next.
        var leftOut: [String] = []
        let xunit = XUnitRounds(invocation)
        // What ended the run outside every test, for the `--xunit-output` files.
        var endedOutside: RunEnding?
        // The status, once the merged `--xunit-output` files are written (`XUnitRounds`).
        func finish(_ status: Int32) -> Int32 {
            guard let xunit else { return status }
            var settled = progress
            settled.finishUnpinned()  // as the summary reads it
            let verdicts = Self.xunitVerdicts(settled, hung: hung, stuck: stuckClasses, list: list)
            let extra =
                Self.xunitClassCases(stuckClasses, list: list)
                + Self.xunitRunCases(settled, endedOutside, quietTimeout: first.options.quietTimeout, list: list)
            do { try xunit.write(rounds: rounds, verdicts: verdicts, extra: extra, status: status) } catch {
                Terminal.writeError("lab watch: --xunit-output: \(error)\n")
                return status != 0 ? status : error is AtomicFile.WriteFailure ? 74 : 73
            }
            return status
        }
        while true {
            rounds += 1
            if let xunit { round.command = xunit.command(round.command, round: rounds) }
            let endedBefore = progress.ended.count
            let end: WatchRound.End
            do { end = try round.run(&progress) } catch {
                Terminal.writeError("lab watch: \(error)\n")
                return finish(71)
            }
            hung += end.hung
            if end.interrupted {
                Terminal.writeError("lab watch: interrupted; the test processes were ended\n")
                summary(progress, hung: hung, rounds: rounds, list: list, invocation: invocation, stuck: stuckClasses)
                endedOutside = .interrupted
                return finish(130)
            }
            if end.quiet {
                // Quiet in an XCTest class with none of its tests running: its `class func setUp()`
                // or `tearDown()` hung. Its tests that had not run would hang behind it again; the
                // other tests run. Quiet anywhere else (a global initializer, the process's exit,
                // the build) would be met again by any rerun: the tests that had not run are named.
                // The list only when the tests were reached (not quiet in the build, which the
                // list would wait on).
                if list == nil && progress.readTestLines { list = round.lister?.listing }
                let held = list.flatMap { listing in
                    end.stuckClass.flatMap {
                        Self.markNotRun(in: listing, &progress, invocation: invocation, inClass: $0)
                    }
                }
                guard let stuck = end.stuckClass, let held else {
                    progress.settleCrash()  // a test that crashed earlier in the round, with where
                    if let list { Self.markNotRun(in: list, &progress, invocation: invocation) }
                    summary(
                        progress, hung: hung, rounds: rounds, list: list, invocation: invocation, stuck: stuckClasses)
                    endedOutside = .quiet
                    return finish(124)
                }
                stuckClasses.append((stuck, held))
            }
            // SwiftPM runs the tests in processes of its own: a signal that ended it before any test
            // started ended SwiftPM itself (its build crashed, or it was killed), and judges no test.
            if !end.endedByWatch, let status = end.status, status > 128, progress.running.isEmpty,
                progress.ended.count == endedBefore
            {
                Terminal.writeError(
                    "lab watch: swift test itself ended by \(ChildProcess.signalName(status - 128)) before any test "
                        + "started (SwiftPM or its build crashed, or was killed): no test was judged\n")
            }
            // A test still running when its process ended without lab watch's doing crashed it
            // (so did one told crashed during the round, by SwiftPM or by Swift Testing starting);
            // of tests side by side in it, those the crash report's crashed thread was running.
            progress.settleCrash()
            for (crashed, beside) in progress.takeBesideCrash() {
                let others = beside.count == 1 ? "1 test beside it" : "\(beside.count) tests beside it"
                let names = crashed.map(progress.named).joined(separator: ", ")
                Terminal.writeError(
                    "lab watch: crashed: \(names) (its crash report's crashed thread runs it); "
                        + "\(others) in that process will run again\n")
            }
            let crashes = progress.ended.filter { $0.ending == .crashed }.count
            defer { crashesBefore = crashes }
            let deaths = progress.diedBetweenTests[deathsBefore...]
            deathsBefore = progress.diedBetweenTests.count
            for death in deaths {
                Terminal.writeError("lab watch: " + Self.diedBetweenTests(death, progress: progress, list: list) + "\n")
            }
            if !end.endedByWatch, let status = end.status, status != 0, failedStatus == 0 { failedStatus = status }
            let alone = progress.nextAlone()
            let disrupted =
                !end.hung.isEmpty || !end.retried.isEmpty || crashes > crashesBefore || end.quiet || !deaths.isEmpty
                || alone != nil
            if disrupted { owesFullRerun = true }
            guard owesFullRerun || !leftOut.isEmpty else { break }
            if list == nil {
                list = round.lister?.listing
                if list == nil { break }
            }
            let listing = list!
            // A process that died between tests in a round that ended none would die so again.
            if !deaths.isEmpty, progress.ended.count == endedBefore {
                Self.markNotRun(in: listing, &progress, invocation: invocation)
                break
            }
            // A process died with several tests and no crash report said which crashed: each runs
            // alone, and one that crashes then crashed. (Rounds are bounded: each ends a test.)
            let enoughRounds = rounds > 2 * listing.ids.count
            if !enoughRounds, let next = Self.firstListed(from: alone, then: { progress.nextAlone() }, in: listing) {
                Terminal.writeError(
                    "lab watch: running \(progress.named(next.key)) alone: its process died with others, "
                        + "and no crash report said which test crashed\n")
                round.command = invocation.rerun([next.id])
                continue
            }
            // After a run that went as asked, only the tests left out of it; after a hang or a
            // crash (and the tests it left to run alone), every listed test that has not ended.
            let remaining = (owesFullRerun ? listing.ids : leftOut).filter {
                invocation.selects($0) && progress.ending(of: listing.key(of: $0)) == nil
            }
            (leftOut, owesFullRerun) = ([], false)
            guard !remaining.isEmpty, !enoughRounds else { break }
            let taken = SwiftTestInvocation.oneRun(of: remaining)
            let count = "\(remaining.count) test\(remaining.count == 1 ? "" : "s")"
            if taken < remaining.count {
                leftOut = Array(remaining[taken...])
                Terminal.writeError(
                    "lab watch: running \(taken) of the \(count) that had not run yet, the rest after them (SwiftPM "
                        + "names the XCTest tests of a run in one argument, which Linux caps at 128 KiB)\n")
            } else {
                Terminal.writeError("lab watch: running the \(count) that had not run yet\n")
            }
            round.command = invocation.rerun(Array(remaining[..<taken]))
        }
        summary(progress, hung: hung, rounds: rounds, list: list, invocation: invocation, stuck: stuckClasses)
        // A crash no test was found to have made (none crashed alone) still fails the run.
        let bad =
            progress.ended.contains { [.failed, .crashed, .hung, .notRun].contains($0.ending) }
            || !progress.unpinnedCrashes.isEmpty || !stuckClasses.isEmpty || !progress.diedBetweenTests.isEmpty
            || progress.issuesOutsideTests > 0
        return finish(bad ? max(1, failedStatus == 0 ? 1 : failedStatus) : failedStatus)
    }

    /// What ended a run of `swift test` outside every test.
    enum RunEnding {
        /// No output and no CPU use outside any test and any held class or suite.
        case quiet
        /// Ctrl-C, SIGTERM or SIGHUP.
        case interrupted
    }

    /// A case for what failed the run that no test's case shows, in the summary's words: the
    /// run ended quiet outside every test or interrupted, or a process died with several tests
    /// and none crashed when each ran alone.
    static func xunitRunCases(
        _ progress: TestProgress, _ ending: RunEnding?, quietTimeout: Seconds, list: TestList.Listing?
    ) -> [XUnitRounds.Case] {
        var cases: [XUnitRounds.Case] = []
        switch ending {
        case .quiet?:
            cases.append(
                XUnitRounds.testCase(
                    classname: "lab watch", name: "quiet", ending: .hung,
                    message: "ended for no output and no CPU use for \(Format.seconds(quietTimeout)) "
                        + "(--quiet-timeout) outside every test: the stacks are in the run's output"))
        case .interrupted?:
            cases.append(
                XUnitRounds.testCase(
                    classname: "lab watch", name: "interrupted", ending: .notRun,
                    message: "interrupted: the test processes were ended; the tests that had not ended did not run"))
        case nil: break
        }
        if progress.issuesOutsideTests > 0 {
            cases.append(
                XUnitRounds.testCase(
                    classname: "lab watch", name: "issues outside tests", ending: .failed,
                    message: issuesOutsideTests(progress.issuesOutsideTests)))
        }
        for death in progress.diedBetweenTests {
            cases.append(
                XUnitRounds.testCase(
                    classname: "lab watch", name: "crash", ending: .crashed,
                    message: diedBetweenTests(death, progress: progress, list: list)))
        }
        for group in progress.unpinnedCrashes where !group.contains(where: { progress.ending(of: $0) == .crashed }) {
            cases.append(
                XUnitRounds.testCase(
                    classname: "lab watch", name: "crash", ending: .crashed,
                    message: unpinnedCrash(group, in: progress) { list?.id(of: $0) ?? $0 }))
        }
        return cases
    }

    /// The sentence for Swift Testing's issues recorded outside every test.
    static func issuesOutsideTests(_ count: Int) -> String {
        "\(count) issue\(count == 1 ? " was" : "s were") recorded outside every test (Swift Testing's «unknown»: "
            + "from a detached task or a thread of the code's own), which fails the run; the output shows where"
    }

    /// The sentence for a test process that died with no test running.
    static func diedBetweenTests(
        _ death: (after: String?, signal: String), progress: TestProgress, list: TestList.Listing?
    ) -> String {
        let signal = Int32(death.signal).map { ChildProcess.signalName($0) } ?? "signal \(death.signal)"
        let after = death.after.map { "after \(list?.id(of: $0) ?? $0) ended" } ?? "before any test ended"
        return "a test process died of \(signal) with no test running (\(after)): in a class's or suite's "
            + "set-up or tear-down, a deinit, a thread a test left running, or its exit"
    }

    /// The summary's sentence for a process that died with `group` running and no crash report
    /// saying which test crashed.
    static func unpinnedCrash(_ group: [String], in progress: TestProgress, named: (String) -> String) -> String {
        let crashed = group.filter { progress.ending(of: $0) == .crashed }
        return "a process died while \(group.map(named).joined(separator: ", ")) ran, and no crash report "
            + "said which crashed; run alone, "
            + (crashed.isEmpty ? "none crashed" : crashed.map(named).joined(separator: ", ") + " crashed")
    }

    /// A case for each XCTest class held in its `tearDown()` after its tests ended, which no
    /// test's case shows: the run failed, and its file should say so.
    static func xunitClassCases(
        _ stuck: [(WatchRound.StuckClass, [String])], list: TestList.Listing?
    ) -> [XUnitRounds.Case] {
        stuck.filter { $0.1.isEmpty }.map { item, _ in
            let message = "hung: \(item.title), \(item.held)"
            if item.swiftTesting {
                return XUnitRounds.testCase(
                    classname: item.name.replacingOccurrences(of: "/", with: "."), name: "suite traits' scope",
                    ending: .hung, message: message)
            }
            let module = item.started.lazy.compactMap { list?.id(of: $0) }.first?.split(separator: ".").first
            return XUnitRounds.testCase(
                classname: module.map { "\($0).\(item.name)" } ?? item.name,
                name: "class " + (item.method ?? "setUp() or tearDown()"), ending: .hung, message: message)
        }
    }

    /// What `lab watch` says of each test that ended, by the list's id, for the `--xunit-output`
    /// files: a hang, a crash or a test not run with the summary's reason.
    static func xunitVerdicts(
        _ progress: TestProgress, hung: [WatchRound.HungTest], stuck: [(WatchRound.StuckClass, [String])],
        list: TestList.Listing?
    ) -> [XUnitRounds.Verdict] {
        var heldBy: [String: String] = [:]
        for (item, ids) in stuck {
            for id in ids { heldBy[id] = "not run: \(item.title) hung, \(item.held)" }
        }
        // A key that more listed tests print alike (`--parallel` keys XCTest's without the
        // module) is no one test's: its verdict is left to the files.
        let ids = list.map { listing in Dictionary(grouping: listing.ids, by: listing.key(of:)) } ?? [:]
        return progress.ended.compactMap { key, ending in
            let listed = ids[key] ?? []
            // A key not listed is an id when Swift Testing's tests were followed by id (read from
            // their lines, `` `parses 1.2`() `` is a name with a dot, not an id).
            let byID = progress.swiftTestingFromEvents && TestList.isSwiftTesting(key) && key.contains(".")
            let unlisted = byID ? key : nil
            guard listed.count <= 1, let id = listed.first ?? unlisted else { return nil }
            let message: String? =
                switch ending {
                case .hung:
                    hung.last { $0.key == key }.map { "hung after \(Format.seconds($0.seconds)): \($0.stuckAt)" }
                case .crashed:
                    switch crashPlace(of: key, in: progress) {
                    case .thread(let place): "crashed: " + place
                    case .unknown(let why): "crashed (\(why))"
                    }
                case .notRun:
                    heldBy[id] ?? "not run: the run was ended for no output and no CPU use (--quiet-timeout)"
                case .passed, .failed, .skipped: nil
                }
            return XUnitRounds.Verdict(id: id, ending: ending, message: message)
        }
    }

    /// Where a crashed test crashed, as the summary and the `--xunit-output` files say it.
    enum CrashPlace {
        /// Its crash report's crashed thread: `1 thread (crashed: …): in Crasher.trap …`.
        case thread(String)
        /// Why no crash report says where.
        case unknown(String)
    }

    static func crashPlace(of key: String, in progress: TestProgress) -> CrashPlace {
        if let group = progress.sharedCrashes[key] {
            return .unknown("one of \(group) tests in the process that died; no crash report said which")
        }
        if let place = progress.crashPlaces[key] { return .thread(place) }
        return .unknown("its process ended before its verdict; no crash report said where")
    }

    /// Marks the selected listed tests that have not ended as not run.
    static func markNotRun(
        in listing: TestList.Listing, _ progress: inout TestProgress, invocation: SwiftTestInvocation
    ) {
        for id in listing.ids where invocation.selects(id) && progress.ending(of: listing.key(of: id)) == nil {
            progress.mark(listing.key(of: id), .notRun)
        }
    }

    /// Marks the tests of held XCTest class `stuck` that had not ended as not run, and returns
    /// their ids; `nil` when the list holds no such class (a suite of another name, as a
    /// `defaultTestSuite` of the user's may give): then it is quiet outside a class. Linux's
    /// XCTest names a class without its module: the class is the module's whose test started
    /// in it; with none started, of two listed classes of that name, the first in the list (the
    /// order they run in) with a test not ended.
    static func markNotRun(
        in listing: TestList.Listing, _ progress: inout TestProgress, invocation: SwiftTestInvocation,
        inClass stuck: WatchRound.StuckClass
    ) -> [String]? {
        if stuck.swiftTesting {
            // Its tests, those of the suites inside it too: the scope holds them all.
            let owned = listing.ids.filter {
                invocation.selects($0) && TestList.isSwiftTesting($0) && $0.hasPrefix(stuck.name + "/")
            }
            let held = owned.filter { progress.ending(of: listing.key(of: $0)) == nil }
            for id in held { progress.mark(listing.key(of: id), .notRun) }
            return owned.isEmpty ? nil : held
        }
        func words(_ id: String) -> [Substring] { id.split(separator: "/")[0].split(separator: ".") }
        let name = stuck.name.split(separator: ".").last
        let owned = listing.ids.filter {
            invocation.selects($0) && !TestList.isSwiftTesting($0) && words($0).last == name
        }
        let notEnded = owned.filter { progress.ending(of: listing.key(of: $0)) == nil }
        let module =
            stuck.started.lazy.compactMap { listing.id(of: $0) }.first.map { words($0)[0] }
            ?? notEnded.first.map { words($0)[0] }
        guard let module else { return owned.isEmpty ? nil : [] }
        let held = notEnded.filter { words($0)[0] == module }
        for id in held { progress.mark(listing.key(of: id), .notRun) }
        return held
    }

    /// The first of `key`, then the keys `next` gives, that `listing` holds, with its id: the
    /// next test to run alone (one the list does not hold cannot be asked for by name).
    static func firstListed(
        from key: String?, then next: () -> String?, in listing: TestList.Listing
    ) -> (key: String, id: String)? {
        var candidate = key
        while let key = candidate {
            if let id = listing.ids.first(where: { listing.key(of: $0) == key }) { return (key, id) }
            candidate = next()
        }
        return nil
    }

    /// The tests `swift test list` names for this run's package (built already), or `nil` after
    /// saying why not. Swift Testing prints a test with a display name by that name alone, so
    /// the list is asked for its event stream too, which pairs each such name with its id: by
    /// the options' names, else by their earlier experimental names (SwiftPM 6.3 takes both;
    /// one that knows neither exits 64), else plain. `ignoresLock`: see `TestLister`.
    static func listTests(
        _ invocation: SwiftTestInvocation, swiftTestingByID: Bool, ignoresLock: Bool
    ) -> TestList.Listing? {
        let command = invocation.listCommand + (ignoresLock ? [SwiftTestInvocation.ignoreLock] : [])
        guard let program = WatchSpawn.resolve(command[0]) else { return nil }
        let stream = temporaryFile("lab-watch-list")
        defer { try? FileManager.default.removeItem(atPath: stream) }
        let attempts = SwiftTestInvocation.eventStreamOptionSets(path: stream) + [[]]
        do {
            var run: ChildRun?
            for extra in attempts {
                run = try ChildProcess.run(
                    ChildSpec(executable: program, arguments: Array(command.dropFirst()) + extra, budget: 300))
                // The next set only when this one was refused (exit 64 for an unknown option): a
                // list that ran out of its budget would only do so again.
                if run?.outcome != .failed { break }
            }
            guard let run else { return nil }
            guard run.outcome == .completed else {
                Terminal.writeError(
                    "lab watch: `\(command.joined(separator: " "))` \(run.evidence); the tests that had not run are not run\n"
                )
                return nil
            }
            let events = (try? String(contentsOfFile: stream, encoding: .utf8)) ?? ""
            return listing(run.stdout, events: events, invocation: invocation, swiftTestingByID: swiftTestingByID)
        } catch {
            Terminal.writeError("lab watch: cannot list the tests: \(error)\n")
            return nil
        }
    }

    /// The listing of `swift test list`'s output and its event stream: the tests `invocation`
    /// selects, so that XCTest's namesakes are numbered in turn among the tests that run (with
    /// `--filter ModB`, ModB's `FooTests.testX` is the first to print so, and is not `#2`).
    static func listing(
        _ stdout: String, events: String, invocation: SwiftTestInvocation, swiftTestingByID: Bool
    ) -> TestList.Listing {
        var listing = TestList.Listing(
            ids: TestList.parse(stdout).filter(invocation.selects),
            displayNames: TestList.displayNames(eventStream: events))
        listing.swiftTestingByID = swiftTestingByID
        listing.namesakesInTurn = !invocation.parallel
        return listing
    }

    /// `swift test list` (`listTests`), taken once, when first needed: after the first hang or
    /// crash, or to name a hung Swift Testing test's function when only its display name was
    /// printed. That last is while `swift test` runs, holding SwiftPM's lock on the scratch
    /// path, which a second SwiftPM waits for: the list waited for the run, and the run for
    /// the hang the list was to name (until the list's budget, 300 s). The list only reads
    /// what is built, so it passes `--ignore-lock` where `swift test --help-hidden` shows it
    /// (SwiftPM since 2024-02-14, swift-package-manager pull request 7338).
    final class TestLister {
        let invocation: SwiftTestInvocation
        /// Whether the run's progress keys Swift Testing's tests by id (`TestList.Listing`).
        let swiftTestingByID: Bool
        let ignoresLock: Bool
        private var taken: TestList.Listing??

        init(_ invocation: SwiftTestInvocation, swiftTestingByID: Bool, ignoresLock: Bool) {
            (self.invocation, self.swiftTestingByID, self.ignoresLock) = (invocation, swiftTestingByID, ignoresLock)
        }

        var listing: TestList.Listing? {
            if let taken { return taken }
            let listing = WatchCommand.listTests(
                invocation, swiftTestingByID: swiftTestingByID, ignoresLock: ignoresLock)
            taken = .some(listing)
            return listing
        }
    }

    /// The printed names that ended for more than one listed test of the run, with those tests'
    /// ids. Read from the lines they print (no event stream), Swift Testing's tests of one
    /// function name in two suites print alike, and the first to end ends them all.
    static func namesakes(
        in list: TestList.Listing, selectedBy selects: (String) -> Bool, ended: (String) -> Bool
    ) -> [(key: String, ids: [String])] {
        guard !list.swiftTestingByID else { return [] }
        return Dictionary(grouping: list.ids.filter(selects), by: list.key(of:))
            .filter { $0.value.count > 1 && ended($0.key) }
            .sorted { $0.key < $1.key }
            .map { (key: $0.key, ids: $0.value) }
    }

    /// The last lines: the counts, the crashed tests, each hung test with where it was stuck, and
    /// what the passes rest on when it is less than the test's own verdict.
    static func summary(
        _ progress: TestProgress, hung: [WatchRound.HungTest], rounds: Int, list: TestList.Listing?,
        invocation: SwiftTestInvocation, stuck: [(WatchRound.StuckClass, [String])] = []
    ) {
        let selects = invocation.selects
        var progress = progress
        progress.finishUnpinned()
        func count(_ ending: TestProgress.Ending) -> Int { progress.ended.filter { $0.ending == ending }.count }
        // A display name comes with its id: `Module.Suite/f() "Adds two numbers"`.
        func id(_ key: String) -> String {
            let id = list?.id(of: key) ?? key
            if key.hasPrefix("\"") { return id == key ? key : "\(id) \(key)" }  // printed by its display name
            return (progress.displayNames[key] ?? list?.displayNames[id]).map { "\(id) \($0)" } ?? id
        }
        var text =
            "\nlab watch: \(progress.ended.count) test\(progress.ended.count == 1 ? "" : "s") in \(rounds) run\(rounds == 1 ? "" : "s") of swift test: "
            + "\(count(.passed)) passed, \(count(.failed)) failed, \(count(.skipped)) skipped, \(count(.crashed)) crashed, \(count(.hung)) hung"
            + (count(.notRun) > 0 ? ", \(count(.notRun)) not run\n" : "\n")
        for item in progress.ended where item.ending == .crashed {
            text += "lab watch: crashed: \(id(item.key))"
            switch crashPlace(of: item.key, in: progress) {
            case .thread(let place): text += ": \(place)\n"
            case .unknown(let why): text += " (\(why))\n"
            }
        }
        for group in progress.unpinnedCrashes where group.contains(where: { progress.sharedCrashes[$0] == nil }) {
            text += "lab watch: " + unpinnedCrash(group, in: progress, named: id) + "\n"
        }
        for death in progress.diedBetweenTests {
            text += "lab watch: crashed: " + diedBetweenTests(death, progress: progress, list: list) + "\n"
        }
        if progress.issuesOutsideTests > 0 {
            text += "lab watch: failed: " + issuesOutsideTests(progress.issuesOutsideTests) + "\n"
        }
        for item in hung {
            text += "lab watch: hung: \(id(item.key)) after \(Format.seconds(item.seconds)): \(item.stuckAt)\n"
        }
        for (stuck, held) in stuck {
            let tests =
                held.isEmpty
                ? "every test of it had ended"
                : "\(held.count) test\(held.count == 1 ? "" : "s") of it did not run: " + held.joined(separator: ", ")
            text +=
                "lab watch: hung: \(stuck.title), \(stuck.held), no output and no CPU use for "
                + "\(Format.seconds(stuck.seconds)) (--quiet-timeout): \(stuck.stuckAt); \(tests)\n"
        }
        // Tests left when the command was ended for going quiet outside a class: any rerun would
        // meet what held it (a global initializer, the test process's exit) before them.
        let held = Set(stuck.flatMap(\.1).map { list?.key(of: $0) ?? $0 })
        let notRun = progress.ended.filter { $0.ending == .notRun && !held.contains($0.key) }.map { id($0.key) }
        if !notRun.isEmpty {
            let shown = notRun.prefix(20).joined(separator: ", ") + (notRun.count > 20 ? ", …" : "")
            text += "lab watch: \(notRun.count) listed test\(notRun.count == 1 ? "" : "s") did not run: \(shown)\n"
        }
        let ended = { (key: String) in progress.ending(of: key) != nil }
        for shared in list.map({ namesakes(in: $0, selectedBy: selects, ended: ended) }) ?? [] {
            text +=
                "lab watch: \(shared.ids.count) listed tests print as \(shared.key) "
                + "(\(shared.ids.joined(separator: ", "))): one verdict was read for them all\n"
        }
        // `--parallel` prints a test process's output only when it failed: a pass is its process's
        // exit status 0, which a test that calls `exit(0)` during it gives too. With `-v` the
        // output of every process is printed, and a start with no verdict after it reads crashed.
        let unread = progress.ended.filter { $0.ending == .passed && WatchReport.isXCTestKey($0.key) }.count
        if invocation.parallel, !invocation.verbose, unread > 0 {
            text +=
                "lab watch: with --parallel, SwiftPM printed no output of the \(unread) XCTest test"
                + "\(unread == 1 ? "" : "s") that passed: each passed by its process's exit status, which a test "
                + "that calls exit(0) gives too; add -v to have their output printed and read\n"
        }
        Terminal.writeError(text)
    }
}
