import Foundation
import LabHarness

/// What a `swift test` run has said about its tests so far, read from its output lines: which
/// are running (since when), and how each that ended, ended.
///
/// The lines read (Linux, Swift 6.3):
/// - XCTest: `Test Case 'OrderTests.test1' started at ...`, then `... passed (0.002 seconds)`,
///   `failed (...)` or `skipped (...)`; on macOS `Test Case '-[Module.OrderTests test1]' started.`
///   and the like (`xctestKey(_:)`);
/// - Swift Testing: `◇ Test firstPasses() started.`, then `✔ Test firstPasses() passed after ...`,
///   `✘ Test ... failed after ...`, `➜ Test ... skipped` or `➜ Test ... was cancelled after ...`;
/// - `swift test --parallel`: `[3/8] Testing Module.Class/test` once a test's process ended (its
///   output, a failure's included, comes at the end); which tests are running is read from the
///   process table instead (each runs as `Package.xctest Module.Class/test`), see `running(_:at:)`;
/// - SwiftPM's `error: Process '...' exited with unexpected signal code 4` when the test process
///   died, and Swift Testing's `◇ Test run started.` after XCTest's part: a test still running
///   then never ends, it crashed.
///
/// Swift Testing's tests are read from its event stream instead when `lab watch` asked for one
/// (`readEvent(_:at:)`): its human-readable lines name a test by its function alone (two suites'
/// `check()` print the same line) or by its display name, where the event stream gives the id.
///
/// Tests are keyed the way XCTest and Swift Testing print them (`OrderTests.test1`,
/// `firstPasses()`), Swift Testing's by id when read from its event stream
/// (`Module.Suite/check()`); `TestList.Listing.key(of:)` gives the same key for an id of
/// `swift test list`.
public struct TestProgress: Sendable {
    /// `notRun`: a test that never started, held up behind a hang of its class's own
    /// (`WatchRound.StuckClass`) or left when the command was ended for going quiet.
    public enum Ending: String, Sendable { case passed, failed, skipped, crashed, hung, notRun }

    /// Running tests and the instant each one's clock started: when the test started, or later
    /// for a parameterized test whose test cases have ended (`casesEnded`) and for one given its
    /// timeout again (`restart(_:at:)`). `--test-timeout` is counted from it.
    public private(set) var running: [String: Seconds] = [:]
    /// When each running test (or one that ran) started: a report's time is counted from here,
    /// not from `running`'s clock, so that it says how long the test ran.
    public private(set) var started: [String: Seconds] = [:]
    /// The test cases of each running parameterized test that have ended, read from the event
    /// stream (`testCaseEnded`); each end starts the test's clock again.
    public private(set) var casesEnded: [String: Int] = [:]
    /// Running tests whose clock was last started again by `restart(_:at:)` (a second chance),
    /// not by a test case's end.
    public private(set) var timeoutRestarted: Set<String> = []
    /// Tests that ended, with how, in the order they ended.
    public private(set) var ended: [(key: String, ending: Ending)] = []
    private var endedKeys: [String: Int] = [:]
    /// `--parallel`: tests whose failed process's output, printed at the end, shows them start
    /// and not end (`endUnfinished()`).
    private var unfinished: Set<String> = []

    /// The tests `unfinished` holds crashed: their process ended during them.
    private mutating func endUnfinished() {
        for key in unfinished.sorted() { end(key, .crashed, replacing: true) }
        unfinished = []
    }

    /// `--parallel`: tests whose process ended but whose verdict SwiftPM has not printed yet (it
    /// prints the output of failed tests after the last one ends).
    public private(set) var provisional: Set<String> = []

    /// XCTest's suites that started and have not ended this round, outermost first (`All tests`
    /// or `Selected tests`, `Package.xctest`, `OrderTests`). A class's suite runs the class's
    /// `class func setUp()` after it starts and before its first test, and its `tearDown()`
    /// after its last test and before it ends, with no test running (swift-corelibs-xctest's
    /// `XCTestSuite.perform`: `run.start()`, whose observer prints the start, then `setUp()`).
    public private(set) var openSuites: [String] = []

    /// The innermost open suite when it is a test class's, not the root's or a bundle's.
    public var openClass: String? { openSuites.last.flatMap { TestProgress.isClassSuite($0) ? $0 : nil } }

    /// The tests that started while `openClass` was open, in order: they are of that class, and
    /// their ids say which module's it is (Linux's XCTest prints a class without its module).
    public private(set) var openClassTests: [String] = []

    /// Whether any test or suite line was read: `swift test` reached its tests.
    public private(set) var readTestLines = false

    static func isClassSuite(_ name: String) -> Bool {
        name != "All tests" && name != "Selected tests" && !name.hasSuffix(".xctest")
    }

    /// XCTest's part of the process is over (its process died, or Swift Testing's part began):
    /// no class is open.
    private mutating func closeSuites() { (openSuites, openClassTests) = ([], []) }

    /// Swift Testing's suites that started and have not ended this round, by id
    /// (`Module.Outer/Inner`), from its event stream: a suite's traits' scopes run after it
    /// starts and before its tests (measured: a suite trait that blocked in `provideScope` left
    /// `◇ Suite HeldSuite started.` the last line).
    public private(set) var openSwiftTestingSuites: [String] = []

    /// The one open Swift Testing suite that holds no other open one, when there is exactly one;
    /// `nil` when none is open or several are (which of them held the run, the stream cannot say).
    public var heldSwiftTestingSuite: String? {
        let innermost = openSwiftTestingSuites.filter { suite in
            !openSwiftTestingSuites.contains { $0.hasPrefix(suite + "/") }
        }
        return innermost.count == 1 ? innermost[0] : nil
    }

    /// Whether Swift Testing's tests are read from its event stream (`readEvent(_:at:)`), and
    /// its human-readable lines are left alone.
    public var swiftTestingFromEvents = false
    /// Display names the event stream gave, by key (`"Adds two numbers"`, quoted as Swift
    /// Testing prints it).
    public private(set) var displayNames: [String: String] = [:]

    public init(swiftTestingFromEvents: Bool = false) { self.swiftTestingFromEvents = swiftTestingFromEvents }

    /// Whether a start of an XCTest test that has ended is the next test of that name
    /// (`instance(_:_:)`): true but for `--parallel`, where SwiftPM prints a failed or hung
    /// test's output again after its verdict, and its `[n/N] Testing` lines name the module.
    public var namesakesInTurn = true

    /// Linux's XCTest prints a test as `Class.test`, without its module, so two test targets'
    /// `FooTests.testX` print alike. Their n-th in turn (n from 2) is keyed `FooTests.testX#n`,
    /// as `TestList.Listing.key(of:)` numbers the listed namesakes, in the list's order (the
    /// test binary's, which runs them in it). The second's start was ignored, as of a test that
    /// had ended: it was never timed, so its hang went unseen, and its verdict was the first's.
    static func instance(_ name: String, _ n: Int) -> String { n == 1 ? name : "\(name)#\(n)" }

    /// `key` without its number in turn (`FooTests.testX#2` is `FooTests.testX`).
    static func withoutInstance(_ key: String) -> String {
        guard let mark = key.lastIndex(of: "#"), !key[key.index(after: mark)...].isEmpty,
            key[key.index(after: mark)...].allSatisfy(\.isNumber)
        else { return key }
        return String(key[..<mark])
    }

    /// The key a start of XCTest test `name` starts: the first of its namesakes in turn that
    /// has not ended.
    private func startedInstance(of name: String) -> String {
        guard namesakesInTurn else { return name }
        var n = 1
        while endedKeys[TestProgress.instance(name, n)] != nil { n += 1 }
        return TestProgress.instance(name, n)
    }

    /// The key a verdict of XCTest test `name` ends: its last namesake in turn that is running,
    /// else `name` (a verdict for a test not running, as `--parallel` prints them).
    private func endedInstance(of name: String) -> String {
        guard namesakesInTurn else { return name }
        var n = 1
        var found = name
        while true {
            let key = TestProgress.instance(name, n)
            if running[key] != nil { found = key } else if endedKeys[key] == nil { return found }
            n += 1
        }
    }

    /// `key` with its display name, as the event stream gave it: `M.Suite/f() "adds"`.
    public func named(_ key: String) -> String { displayNames[key].map { "\(key) \($0)" } ?? key }

    /// How `key` ended, if it did.
    public func ending(of key: String) -> Ending? { endedKeys[key].map { ended[$0].ending } }

    /// Reads one line of output (without its newline).
    public mutating func read(_ line: Substring, at now: Seconds) {
        if line.first == " " {
            if readingCrashedThread, let last = crashedThreads.indices.last,
                crashedThreads[last].count < TestProgress.crashFramesKept
            {
                crashedThreads[last].append(String(line))
            }
            return
        }
        // Swift's backtracer: `Thread 4 "oot.default-qos" crashed:` (or `Thread 4 crashed:`),
        // then a frame a line; the next thread, or any other line read, ends its frames.
        readingCrashedThread = line.hasPrefix("Thread ") && line.hasSuffix(" crashed:")
        if readingCrashedThread {
            crashedThreads.append([String(line)])
            return
        }
        if line.hasPrefix("Test Suite '") {
            // `Test Suite 'OrderTests' started at …`, then `… passed at …` or `… failed at …`.
            let rest = line.dropFirst("Test Suite '".count)
            guard let quote = rest.firstIndex(of: "'") else { return }
            let name = String(rest[..<quote])
            readTestLines = true
            if rest[quote...].hasPrefix("' started") {
                // Classes do not nest: one still open lost its end line (glued to other output).
                if TestProgress.isClassSuite(name) { openSuites.removeAll(where: TestProgress.isClassSuite) }
                openSuites.append(name)
                openClassTests = []
            } else if let index = openSuites.lastIndex(of: name) {
                openSuites.removeSubrange(index...)
                openClassTests = []
            }
            return
        }
        if line.hasPrefix("Test Case '") {
            let rest = line.dropFirst("Test Case '".count)
            guard let quote = rest.firstIndex(of: "'") else { return }
            let name = TestProgress.xctestKey(rest[..<quote])
            let verb = rest[rest.index(after: quote)...]
            if verb.hasPrefix(" started") {
                // `--parallel` prints the whole output of a test whose process failed once every
                // process has ended: a start there with no verdict after it is a process that
                // ended during its test (`exit(3)`: no signal, so no line of SwiftPM's says so).
                readTestLines = true
                if provisional.contains(name) {
                    unfinished.insert(name)
                } else {
                    let key = startedInstance(of: name)
                    start(key, at: now)
                    if openClass != nil { openClassTests.append(key) }
                }
                return
            }
            // A verdict; `measured [Time, seconds] average: …` of a `measure` block is none.
            let key = endedInstance(of: name)
            if verb.hasPrefix(" passed") {
                end(key, .passed)
            } else if verb.hasPrefix(" failed") {
                end(key, .failed, replacing: true)
            } else if verb.hasPrefix(" skipped") {
                end(key, .skipped, replacing: true)
            } else {
                return
            }
            provisional.remove(name)
            unfinished.remove(name)
            return
        }
        if line.hasPrefix("["), let close = line.firstIndex(of: "]"),
            line[line.index(after: close)...].hasPrefix(" Testing "), line[..<close].contains("/")
        {
            // `--parallel`: the test's process has ended; a failure is told later, by its output.
            let id = line[line.index(after: close)...].dropFirst(" Testing ".count)
            let key = TestList.key(of: String(id))
            running[key] = nil
            if endedKeys[key] == nil {
                end(key, .passed)
                provisional.insert(key)
            }
            return
        }
        if line.hasPrefix("error: Process '") { closeSuites() }
        if line.hasPrefix("error: Process '"), treeEndedByWatch {
            running = [:]  // its process was ended by lab watch
            return
        }
        if line.hasPrefix("error: Process '"), let close = line.range(of: "' exited with unexpected signal") {
            // `--parallel` names the one test its process ran; a serial run names all or none.
            // The command line also holds paths and option values (`--scratch-path .build/x`,
            // the event stream's `/tmp/…jsonl`, macOS's `xctest -XCTest M.C/t /…/P.xctest`),
            // which are not tests: an id is `Module.Class/test`.
            let words = line[line.index(line.startIndex, offsetBy: "error: Process '".count)..<close.lowerBound].split(
                separator: " ")
            let pieces = words.dropFirst().flatMap { $0.split(separator: ",") }
            let ids = pieces.filter(TestProgress.isXCTestID)
            if ids.count == 1 {
                end(TestList.key(of: String(ids[0])), .crashed, replacing: true)
            } else if running.count == 1 {
                endRunning(.crashed)
            } else if !running.isEmpty {
                // Which crashed, of several side by side (Swift Testing), is settled once the
                // round's output, crash reports included, is read (`settleCrash()`).
                crashGroups.append(running.keys.sorted())
                running = [:]
            } else if ids.isEmpty {
                // No test running: it died between tests (a class's `tearDown()`, a deinit, a
                // thread a test left behind), and the tests after it did not run.
                let signal = line[close.upperBound...].split(separator: " ").last.map(String.init) ?? "?"
                diedBetweenTests.append((after: ended.last?.key, signal: signal))
            }
            return
        }
        // Swift Testing: a symbol, a space, then `Test NAME started.` and the like.
        guard let space = line.firstIndex(of: " "), line[line.index(after: space)...].hasPrefix("Test ") else { return }
        let text = line[line.index(after: space)...].dropFirst("Test ".count)
        if text.hasPrefix("case ") {
            return  // `◇ Test case passing 1 argument ... to f(x:) started.`: one case of a test
        } else if text == "run started." {
            closeSuites()
            readTestLines = true
            // XCTest's part is over: a test of it still running never ended, and SwiftPM has
            // printed every verdict of a `--parallel` run. Read here, in order with XCTest's
            // lines (the event stream's `runStarted` may be read before the last of them); a
            // Swift Testing test the event stream has started already is not XCTest's.
            let fromEvents = swiftTestingFromEvents
            let xctests: (String) -> Bool = { !(fromEvents && TestList.isSwiftTesting($0)) }
            if treeEndedByWatch { forgetRunning(which: xctests) } else { endRunning(.crashed, which: xctests) }
            endUnfinished()
            provisional = []
        } else if swiftTestingFromEvents {
            return  // its tests come from the event stream
        } else if text.hasPrefix("run ") {
            return  // `✔ Test run with 3 tests in 1 suite passed after ...`: the whole run
        } else if TestProgress.isIssueLine(text) {
            // `✔ Test f() recorded a known issue at …: request failed after 3 retries` is no
            // verdict; `✘ Test f() recorded an issue at …` after `f()` passed (from a task it
            // started) fails it, and one of `«unknown»` (outside every test) fails the run.
            guard line[..<space] == "✘", let name = TestProgress.issueRecorder(text) else { return }
            if name == "«unknown»" {
                issuesOutsideTests += 1
            } else if ending(of: name) == .passed {
                end(name, .failed, replacing: true)
            }
        } else if text.hasSuffix(" started.") {
            start(String(text.dropLast(" started.".count)), at: now)
        } else if let verdict = TestProgress.verdict(of: text) {
            // `➜ Test f() was cancelled after 0.001 seconds`: `Test.cancel()`, which Swift
            // Testing prints with its skip symbol; left running, it was called crashed.
            end(verdict.name, verdict.ending, replacing: verdict.ending == .failed)
        }
    }

    /// Whether a Swift Testing line (after `Test `) tells of an issue a test recorded, `f()
    /// recorded an issue at S.swift:3:4: MESSAGE` (`a known issue`, `a warning`, `an issue with 1
    /// argument …`): its message is the test's own text, which may say `failed after` or end
    /// `started.`; read as a verdict, a known issue of a passing test made a phantom failed one.
    static func isIssueLine(_ text: Substring) -> Bool { issueRecorder(text) != nil }

    /// The test an issue line (after `Test `) names: `f()` of `f() recorded an issue at …`,
    /// `«unknown»` for an issue of no test; `nil` when it is no issue line.
    static func issueRecorder(_ text: Substring) -> String? {
        if text.hasPrefix("«unknown» recorded ") { return "«unknown»" }
        for end in [") recorded ", "\" recorded "] {
            if let range = text.range(of: end) { return String(text[..<text.index(after: range.lowerBound)]) }
        }
        return nil
    }

    /// The test a Swift Testing verdict line (after `Test `) names, and how it ended: the verdict
    /// (`passed after`, `failed after`, `skipped`, `was cancelled`) must follow the test's name at
    /// once (`isTestName`; a parameterized test's ` with 3 test cases` between them), not merely
    /// appear in the line; the first place in the line where one does is taken.
    static func verdict(of text: Substring) -> (name: String, ending: Ending)? {
        let phrases: [(phrase: String, ending: Ending)] = [
            (" passed after ", .passed), (" failed after ", .failed), (" skipped", .skipped),
            (" was cancelled", .skipped),
        ]
        var found: (at: Substring.Index, name: String, ending: Ending)?
        for (phrase, ending) in phrases {
            var from = text.startIndex
            while let range = text.range(of: phrase, range: from..<text.endIndex) {
                if let found, found.at <= range.lowerBound { break }
                let name = TestProgress.name(text[..<range.lowerBound])
                if isTestName(Substring(name)) {
                    found = (range.lowerBound, name, ending)
                    break
                }
                from = range.upperBound
            }
        }
        return found.map { ($0.name, $0.ending) }
    }

    /// Whether `name` reads as the name Swift Testing prints for a test: a display name, quoted
    /// (`"Adds two numbers"`), or a function, which ends with its argument labels in parentheses
    /// (`f()`, `f(x:y:)`: no space or parenthesis among them).
    static func isTestName(_ name: Substring) -> Bool {
        if name.first == "\"" { return name.count >= 2 && name.last == "\"" }
        guard name.last == ")", let open = name.lastIndex(of: "("), open > name.startIndex else { return false }
        let labels = name[name.index(after: open)..<name.index(before: name.endIndex)]
        return !labels.contains { $0 == " " || $0 == "(" || $0 == ")" }
    }

    /// Reads one record of Swift Testing's event stream (version 0, one JSON object a line):
    /// `test` records (each test function's id, and its display name), and the events
    /// `testStarted`, `testEnded` (its message's symbol says how: `fail`, `skip` for a test that
    /// cancelled itself, or a pass) and
    /// `testSkipped`, for test functions (a suite's start and end are not a test's). A
    /// parameterized test starts and ends once, around its cases, and `testCaseEnded` tells each
    /// case's end: the test's clock starts again there, since its cases may together run far
    /// longer than one test should (Swift Testing's own `.timeLimit` applies to each case; 16
    /// cases of 0.5 s were called hung at `--test-timeout 2s`). The end of XCTest's part is
    /// read from the output (`◇ Test run started.`), which keeps its order with XCTest's lines.
    public mutating func readEvent(_ line: Substring, at now: Seconds) {
        guard line.contains("\"kind\""),
            let record = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let payload = record["payload"] as? [String: Any], let kind = payload["kind"] as? String
        else { return }
        if record["kind"] as? String == "test" {
            if let named = TestList.displayName(in: record) { displayNames[named.id] = named.name }
            return
        }
        guard record["kind"] as? String == "event" else { return }
        // An issue (not a known one, not a warning) fails its test, though recorded after the
        // test's end was read (from a task the test started, which keeps it as its test); one
        // recorded outside every test (a detached task's, a thread's) fails the run.
        let failing =
            kind == "issueRecorded"
            && (payload["messages"] as? [[String: Any]] ?? []).contains { $0["symbol"] as? String == "fail" }
        guard let id = (payload["testID"] as? String).map(TestList.withoutSourceLocation) else {
            if failing { issuesOutsideTests += 1 }
            return
        }
        if failing {
            if ending(of: id) == .passed { end(id, .failed, replacing: true) }
            return
        }
        guard TestList.isSwiftTesting(id) else {
            // A suite's start and end (`Module.Suite`, no function).
            if kind == "testStarted" { openSwiftTestingSuites.append(id) }
            if kind == "testEnded" || kind == "testSkipped" { openSwiftTestingSuites.removeAll { $0 == id } }
            return
        }
        switch kind {
        case "testStarted": start(id, at: now)
        case "testSkipped": end(id, .skipped)
        case "testCaseEnded":
            guard running[id] != nil else { return }
            running[id] = now
            casesEnded[id, default: 0] += 1
            timeoutRestarted.remove(id)
        case "testEnded":
            // A test that cancelled itself (`Test.cancel()`) ends with the skip symbol.
            let symbols = (payload["messages"] as? [[String: Any]] ?? []).compactMap { $0["symbol"] as? String }
            if symbols.contains("fail") {
                end(id, .failed, replacing: true)
            } else {
                end(id, symbols.contains("skip") ? .skipped : .passed)
            }
        default: return
        }
    }

    /// Whether `word` is an XCTest test's id as SwiftPM passes it to a test process,
    /// `Module.Class/test` (identifiers, the module and class joined by dots): not a path
    /// (`/tmp/e.jsonl`, `.build/x`, `Tests/Fixture`) or a filter's pattern.
    static func isXCTestID(_ word: Substring) -> Bool {
        let parts = word.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return false }
        func identifier(_ name: Substring) -> Bool {
            guard let first = name.first, first.isLetter || first == "_" else { return false }
            return name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
        }
        let owner = parts[0].split(separator: ".", omittingEmptySubsequences: false)
        return owner.count >= 2 && owner.allSatisfy(identifier) && identifier(parts[1])
    }

    /// The key of an XCTest test as its `Test Case '…'` line names it: Linux's XCTest
    /// (swift-corelibs-xctest) prints `Class.test`, the key; Apple's prints `-[Module.Class test]`
    /// (swiftlang/vscode-swift reads both forms: `darwinTestRegex` and `nonDarwinTestRegex` in
    /// `src/TestExplorer/TestParsers/XCTestOutputParser.ts`), read as `swift test list`'s
    /// `Module.Class/test` is (`TestList.key(of:)`), so that a Mac's run and its list agree.
    static func xctestKey(_ printed: Substring) -> String {
        guard printed.hasPrefix("-["), printed.hasSuffix("]"), let space = printed.firstIndex(of: " ") else {
            return String(printed)
        }
        let owner = printed[printed.index(printed.startIndex, offsetBy: 2)..<space]
        let test = printed[printed.index(after: space)..<printed.index(before: printed.endIndex)]
        return TestList.key(of: "\(owner)/\(test)")
    }

    /// A parameterized test ends as `f(x:) with 3 test cases passed after ...`: its name is `f(x:)`.
    static func name(_ text: Substring) -> String {
        guard text.hasSuffix(" test case") || text.hasSuffix(" test cases"),
            let with = text.range(of: " with ", options: .backwards),
            text[with.upperBound...].first?.isNumber == true
        else { return String(text) }
        return String(text[..<with.lowerBound])
    }

    /// Marks the tests running in processes the process table shows (`--parallel`): each starts
    /// when first seen.
    public mutating func running(_ keys: [String], at now: Seconds) {
        for key in keys where running[key] == nil && endedKeys[key] == nil {
            running[key] = now
            started[key] = now
        }
    }

    /// Every running test (that `which` accepts) ended as `ending`: its process died.
    public mutating func endRunning(_ ending: Ending, which: (String) -> Bool = { _ in true }) {
        for key in running.keys.sorted() where which(key) { end(key, ending) }
    }

    /// Forgets that the running tests `which` accepts ran: lab watch ended their process, and
    /// they will run again.
    public mutating func forgetRunning(which: (String) -> Bool) {
        for key in running.keys where which(key) { running[key] = nil }
    }

    /// Ends `key` as `ending` (a hung test, once its tree was ended).
    public mutating func mark(_ key: String, _ ending: Ending) { end(key, ending, replacing: true) }

    /// Forgets the tests whose verdict was still to come: the tree was ended before SwiftPM
    /// printed it, so they run again.
    public mutating func forgetProvisional() {
        unfinished = []
        guard !provisional.isEmpty else { return }
        ended.removeAll { provisional.contains($0.key) }
        endedKeys = Dictionary(uniqueKeysWithValues: ended.enumerated().map { ($0.element.key, $0.offset) })
        provisional = []
    }

    /// Moves the running tests' clocks on by `seconds` that the machine took (it slept or was
    /// paused): no test is timed for them.
    public mutating func skip(_ seconds: Seconds) {
        for key in running.keys { running[key]! += seconds }
    }

    /// Forgets that `key` ran: it was running when the tree was ended for another test's hang,
    /// and will run again.
    public mutating func forgetRunning(_ key: String) { running[key] = nil }

    /// Whether lab watch ended the tree this round: a process that dies after that dies of its
    /// doing, and its tests did not crash.
    private var treeEndedByWatch = false

    /// Lab watch ended the tree (for a hang): the tests running then, or starting before the
    /// tree is gone (SwiftPM may start the next test process meanwhile), did not end, and run
    /// again; SwiftPM's crash lines for the ended processes crash nothing.
    public mutating func treeEnded() {
        treeEndedByWatch = true
        running = [:]
    }

    /// Starts `key`'s clock again (`--parallel`: late with no frame of its own, it gets a whole
    /// timeout more).
    mutating func restart(_ key: String, at now: Seconds) {
        guard running[key] != nil else { return }
        running[key] = now
        timeoutRestarted.insert(key)
    }

    /// Tests already given a second chance for showing no frame of their own when late.
    private var retriedOnce: Set<String> = []

    /// Whether `key`, late with no frame of its own, may have a second chance: once.
    mutating func mayRetry(_ key: String) -> Bool { retriedOnce.insert(key).inserted }

    /// The tests running in each process SwiftPM said died this round, to be settled by
    /// `settleCrash()`.
    private var crashGroups: [[String]] = []
    /// Each crashed thread that the crash reports read this round list (Swift's backtracer): its
    /// heading line, then its frames; and whether the lines being read are such frames.
    private var crashedThreads: [[String]] = []
    private var readingCrashedThread = false
    /// Where this round's endings start in `ended`.
    private var crashesFrom = 0
    /// The backtracer prints at most 64 frames a thread; more than that are kept from no report.
    static let crashFramesKept = 1024

    /// Issues recorded outside every test (`«unknown»`): each fails the run.
    public private(set) var issuesOutsideTests = 0

    /// Each test process that died of a signal with no test running, with the last test that
    /// had ended then (`nil`: none had) and the signal's number as SwiftPM printed it.
    public private(set) var diedBetweenTests: [(after: String?, signal: String)] = []

    /// The tests of each process that died with several running and no crash report saying
    /// which crashed: they did not end, and run again one at a time (`nextAlone()`).
    public private(set) var unpinnedCrashes: [[String]] = []
    private var alone: [String] = []
    /// Tests of an unpinned crash that never ran alone (no list of the tests to run them by),
    /// ended crashed by `finishUnpinned()`: each with the number of tests it was one of.
    public private(set) var sharedCrashes: [String: Int] = [:]

    /// The next test of an unpinned crash to run alone, that has not ended since.
    public mutating func nextAlone() -> String? {
        while !alone.isEmpty {
            let key = alone.removeFirst()
            if ending(of: key) == nil { return key }
        }
        return nil
    }

    /// Ends the tests of unpinned crashes that never ran alone as crashed, each one of its group.
    public mutating func finishUnpinned() {
        for group in unpinnedCrashes {
            for key in group where ending(of: key) == nil {
                end(key, .crashed)
                sharedCrashes[key] = group.count
            }
        }
        alone = []
    }

    /// Where crashed tests crashed, by key, when a crash report's crashed thread runs them:
    /// `1 thread (crashed: …): in Crasher.trap (Misbehaviour.swift:47) ← Suite.test …`.
    public private(set) var crashPlaces: [String: String] = [:]
    /// Tests that were running beside a crashed test whose crash report named it: forgotten, so
    /// they run again (`takeBesideCrash()`).
    public private(set) var besideCrash: [(crashed: [String], beside: [String])] = []

    /// Hands over `besideCrash`, and clears it.
    public mutating func takeBesideCrash() -> [(crashed: [String], beside: [String])] {
        defer { besideCrash = [] }
        return besideCrash
    }

    /// Called once the round's output is read: the tests of each process that died crashed, and
    /// so did the tests still running, their process over. One test alone in its process
    /// crashed. Of several (Swift Testing runs tests side by side, and all were in the process
    /// that died), the one each crash report's crashed thread runs crashed (`CrashedTest.test`);
    /// the others did not end, and run again. When no report names any of them (a helper's thread
    /// crashed, or there was no report), none ended: each runs again alone (`nextAlone()`).
    public mutating func settleCrash() {
        defer {
            (crashGroups, crashedThreads, readingCrashedThread, treeEndedByWatch) = ([], [], false, false)
            unfinished = []
            closeSuites()
            openSwiftTestingSuites = []
        }
        if !treeEndedByWatch { endUnfinished() }
        if !running.isEmpty && !treeEndedByWatch { crashGroups.append(running.keys.sorted()) }
        running = [:]
        func crashedThread(running key: String) -> [String]? {
            crashedThreads.first { CrashedTest.test(of: [key], runBy: $0) == key }
        }
        defer { crashesFrom = ended.count }
        for group in crashGroups {
            // Each crashed thread pins the one test of the group it runs outermost.
            let pinned = Set(crashedThreads.compactMap { CrashedTest.test(of: group, runBy: $0) })
            let named = group.filter(pinned.contains)
            if group.count == 1 {
                end(group[0], .crashed)
            } else if named.isEmpty {
                unpinnedCrashes.append(group)
                alone += group
            } else {
                for key in named { end(key, .crashed) }
                besideCrash.append((named, group.filter { !named.contains($0) }))
            }
        }
        // Where each test that crashed this round crashed: the crashed thread that runs it, or,
        // for the one crash of a round with one crashed thread, that thread (a helper's).
        let crashedNow = ended[min(crashesFrom, ended.count)...].filter { $0.ending == .crashed }.map(\.key)
        for key in crashedNow where crashPlaces[key] == nil {
            let onlyThread = crashedNow.count == 1 && crashedThreads.count == 1 ? crashedThreads.first : nil
            crashPlaces[key] = (crashedThread(running: key) ?? onlyThread).flatMap {
                CrashReport.crashingThread(in: $0.joined(separator: "\n"))
            }
        }
    }

    private mutating func start(_ key: String, at now: Seconds) {
        guard endedKeys[key] == nil else { return }
        running[key] = now
        started[key] = now
        casesEnded[key] = nil
        timeoutRestarted.remove(key)
    }

    private mutating func end(_ key: String, _ ending: Ending, replacing: Bool = false) {
        running[key] = nil
        if let index = endedKeys[key] {
            // A hung test stays hung, whatever SwiftPM then says of its ended process.
            if replacing && ended[index].ending != .hung { ended[index].ending = ending }
            return
        }
        endedKeys[key] = ended.count
        ended.append((key, ending))
    }
}
