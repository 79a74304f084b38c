import FindingsTestSupport
import Foundation
import LabHarness
import LabHarnessXCTest
@testable import LabRunner
import Synchronization
import XCTest

/// `lab watch`: its parsing of options, test lines and `swift test` command lines, and, on the
/// fixture package `Tests/WatchFixture` (built once, under `.build/watch-fixture`), a whole run
/// with a deadlock, a spin and a crash between passing tests.
final class WatchCommandTests: XCTestCase {
    // MARK: - Options

    func testDurationsTakeUnitsOrSeconds() {
        XCTAssertEqual(WatchOptions.duration("60s"), 60)
        XCTAssertEqual(WatchOptions.duration("500ms"), 0.5)
        XCTAssertEqual(WatchOptions.duration("5m"), 300)
        XCTAssertEqual(WatchOptions.duration("1h"), 3600)
        XCTAssertEqual(WatchOptions.duration("1.5"), 1.5)
        for bad in ["", "s", "-1s", "1e3", "ten", "5 s", "nan", "1.2.3s"] {
            XCTAssertNil(WatchOptions.duration(bad), bad)
        }
    }

    func testOptionsNeedTheCommandAfterTheSeparator() throws {
        let options = try WatchOptions.parse([
            "--test-timeout", "2s", "--quiet-timeout=90s", "--", "swift", "test", "--", "x",
        ]).get()
        XCTAssertEqual(options.testTimeout, 2)
        XCTAssertEqual(options.quietTimeout, 90)
        XCTAssertEqual(options.command, ["swift", "test", "--", "x"])
        for bad in [
            ["swift", "test"], ["--"], ["--test-timeout", "--", "true"], ["--test-timeout", "0s", "--", "true"],
            ["--test-timeout", "25h", "--", "true"], ["--timeout", "1s", "--", "true"],
        ] {
            guard case .failure(let problem) = WatchOptions.parse(bad) else { return XCTFail("accepted \(bad)") }
            XCTAssertFalse(problem.message.contains("\n"), problem.message)
        }
    }

    func testBadUsageIsOneLineAndExit64() throws {
        let lab = try BuiltProducts.executable("lab")
        for arguments in [
            ["watch"], ["watch", "--test-timeout", "soon", "--", "true"], ["watch", "--", "no-such-command-here"],
        ] {
            let run = try ChildProcess.run(ChildSpec(executable: lab, arguments: arguments, budget: 20))
            XCTAssertEqual(run.exitCode, 64, "\(arguments): \(run.stderr)")
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)
            XCTAssertTrue(run.stderr.hasPrefix("lab watch: "), run.stderr)
        }
    }

    /// Work done in short-lived children is in the process table only while each child lives:
    /// `sh -c 'while :; do awk …; done'` was called stuck (`no output and no CPU use for 3.00 s`,
    /// exit 124) while it worked. A process's sample counts the CPU of the children it reaped.
    func testTheCPUOfReapedChildrenCounts() throws {
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("lab-reaped-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: marker) }
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", "awk 'BEGIN { for (i = 0; i < 3000000; i++); }'; : > '\(marker)'; exec sleep 30"]
        try shell.run()
        defer {
            shell.terminate()
            shell.waitUntilExit()
        }
        let deadline = MonotonicClock.now() + 30
        while !FileManager.default.fileExists(atPath: marker) && MonotonicClock.now() < deadline {
            MonotonicClock.sleep(for: 0.02)
        }
        let sample = WatchRound.cpuUse(below: getpid())
        XCTAssertGreaterThan(sample[shell.processIdentifier] ?? 0, 0.02, "the awk the shell reaped: \(sample)")
    }

    /// `--test-timeout` times `swift test`'s tests only: given for another command it was
    /// ignored without a word, and a user could trust it to stop a hung test.
    func testATestTimeoutForAnotherCommandIsSaidToBeIgnored() throws {
        let lab = try BuiltProducts.executable("lab")
        let command = ["--", "/bin/sh", "-c", "true"]
        let given = try ChildProcess.run(
            ChildSpec(executable: lab, arguments: ["watch", "--test-timeout", "1s"] + command, budget: 20))
        XCTAssertEqual(given.exitCode, 0, given.stderr)
        XCTAssertEqual(given.stderr.split(separator: "\n").count, 1, given.stderr)
        XCTAssertTrue(given.stderr.hasPrefix("lab watch: --test-timeout is ignored: "), given.stderr)
        let plain = try ChildProcess.run(
            ChildSpec(executable: lab, arguments: ["watch", "--quiet-timeout", "5s"] + command, budget: 20))
        XCTAssertEqual(plain.exitCode, 0, plain.stderr)
        XCTAssertEqual(plain.stderr, "")
    }

    // MARK: - swift test command lines

    func testSwiftTestIsRecognisedAndRerunByExactFilters() throws {
        XCTAssertNil(SwiftTestInvocation(["swift", "build"]))
        XCTAssertNil(SwiftTestInvocation(["swift", "test", "list"]))
        XCTAssertNil(SwiftTestInvocation(["make", "test"]))
        let invocation = try XCTUnwrap(
            SwiftTestInvocation([
                "swift", "test", "--parallel", "--package-path", "P", "--filter", "Order",
                "--skip", "Slow", "-c", "release", "--scratch-path=S", "--build-system", "swiftbuild",
            ]))
        XCTAssertTrue(invocation.parallel)
        XCTAssertEqual(
            invocation.listCommand,
            [
                "swift", "test", "list", "--skip-build", "--package-path", "P", "-c", "release", "--scratch-path=S",
                "--build-system", "swiftbuild",
            ])
        let rerun = invocation.rerun(["M.OrderTests/test1", "M.Suite/first()"])
        XCTAssertEqual(
            rerun,
            [
                "swift", "test", "--parallel", "--package-path", "P", "-c", "release", "--scratch-path=S",
                "--build-system", "swiftbuild", "--skip-build",
                "--filter", SwiftTestInvocation.exactly("M.OrderTests/test1"),
                "--filter", SwiftTestInvocation.exactly("M.Suite/first()"),
            ])
        XCTAssertTrue(invocation.selects("M.OrderTests/test1"))
        XCTAssertFalse(invocation.selects("M.OrderTests/testSlow"), "--skip Slow")
        XCTAssertFalse(invocation.selects("M.Other/test1"), "--filter Order")
        // Verbose, SwiftPM prints every `--parallel` test process's output, passes' too.
        XCTAssertFalse(invocation.verbose)
        for flag in ["-v", "--verbose", "--very-verbose", "--vv"] {
            XCTAssertEqual(SwiftTestInvocation(["swift", "test", "--parallel", flag])?.verbose, true, flag)
        }
        XCTAssertEqual(SwiftTestInvocation(["swift", "test", "--filter", "-v"])?.verbose, false, "a filter's value")
    }

    /// SwiftPM hands XCTest the tests of a run in one argument, ids joined by commas, and Linux
    /// caps one argument at 128 KiB: a rerun of 3,000 remaining tests could not start. A rerun
    /// takes as many as fit, and the rest run after it.
    func testALongRerunIsSplitSoThatItsArgumentsFit() throws {
        let ids = (0..<3000).map { String(format: "SomeModuleTests.SomeRatherLongTestClassName/testSomething%04d", $0) }
        let invocation = try XCTUnwrap(SwiftTestInvocation(["swift", "test"]))
        var runs: [[String]] = []
        var rest = ids[...]
        while !rest.isEmpty {
            let taken = SwiftTestInvocation.oneRun(of: Array(rest))
            XCTAssertGreaterThan(taken, 0)
            runs.append(Array(rest.prefix(taken)))
            rest = rest.dropFirst(taken)
        }
        XCTAssertGreaterThan(runs.count, 1)
        XCTAssertEqual(runs.flatMap { $0 }, ids, "every test in one run, in order")
        for run in runs {
            let command = invocation.rerun(run)
            let patterns = command.indices.filter { $0 > 0 && command[$0 - 1] == "--filter" }.map { command[$0] }
            XCTAssertLessThanOrEqual(patterns.reduce(0) { $0 + $1.utf8.count + 1 }, SwiftTestInvocation.filterBudget)
            // The argument SwiftPM builds for XCTest from them, under Linux's 128 KiB.
            XCTAssertLessThan(run.joined(separator: ",").utf8.count, 128 * 1024)
        }
        XCTAssertEqual(SwiftTestInvocation.oneRun(of: ["M.C/t"]), 1)
        XCTAssertEqual(SwiftTestInvocation.oneRun(of: [String(repeating: "x", count: 200_000)]), 1, "one at least")
    }

    func testAnExactFilterMatchesOneTestOnly() throws {
        func matches(_ pattern: String, _ text: String) throws -> Bool {
            try NSRegularExpression(pattern: pattern).firstMatch(in: text, range: NSRange(text.startIndex..., in: text))
                != nil
        }
        let xctest = SwiftTestInvocation.exactly("M.OrderTests/test1")
        XCTAssertTrue(try matches(xctest, "M.OrderTests/test1"))
        XCTAssertFalse(try matches(xctest, "M.OrderTests/test10"))
        XCTAssertFalse(try matches(xctest, "XM.OrderTests/test1"))
        // Swift Testing's ids run on past the name, with the source location.
        let swiftTesting = SwiftTestInvocation.exactly("M.Suite/first()")
        XCTAssertTrue(try matches(swiftTesting, "M.Suite/first()/Tests.swift:7:4"))
        XCTAssertFalse(try matches(swiftTesting, "M.Suite/firstOf()"))
    }

    func testTestListKeysMatchWhatTheTestsPrint() {
        XCTAssertEqual(
            TestList.parse("M.OrderTests/test1\nM.Suite/first()\n\nwarning: something\n"),
            ["M.OrderTests/test1", "M.Suite/first()"])
        XCTAssertEqual(TestList.key(of: "WatchFixtureTests.OrderTests/test1PassesFirst"), "OrderTests.test1PassesFirst")
        XCTAssertEqual(TestList.key(of: "WatchFixtureTests.SerialSuite/firstPasses()"), "firstPasses()")
    }

    /// A Swift Testing test at a module's top level has no `/` in its id (SwiftPM 6.3.1 lists it
    /// as `Module.f()`, and its event stream names it `Module.f()/File.swift:2:2`): it is listed,
    /// keyed by the name it prints, and followed by id. Before, it was dropped from the list
    /// (never run again after a hang) and read as no test's from the event stream (never timed).
    func testATopLevelSwiftTestingTestIsListedAndFollowed() throws {
        XCTAssertEqual(
            TestList.parse("TL.S/inS()\nTL.topLevel()\nTL.`it's > 0`()\nnot a test()\nTL.Suite\n"),
            ["TL.S/inS()", "TL.topLevel()", "TL.`it's > 0`()"])
        XCTAssertTrue(TestList.isSwiftTesting("TL.topLevel()"))
        XCTAssertFalse(TestList.isSwiftTesting("TL.S"))
        XCTAssertFalse(TestList.isSwiftTesting("TL.OrderTests/test1"))
        XCTAssertEqual(TestList.key(of: "TL.topLevel()"), "topLevel()")
        XCTAssertEqual(TestList.key(of: "TL.`it's > 0`()"), "`it's > 0`()")
        XCTAssertEqual(TestList.withoutSourceLocation("TL.topLevel()/T.swift:2:2"), "TL.topLevel()")
        XCTAssertEqual(TestList.withoutSourceLocation("TL.S/inS()/T.swift:4:13"), "TL.S/inS()")
        // Its crash report's frame names the function without its module.
        let parts = try XCTUnwrap(CrashedTest.parts(of: "TL.topLevel()"))
        XCTAssertNil(parts.owner)
        XCTAssertEqual(parts.function, "topLevel")
        var progress = TestProgress(swiftTestingFromEvents: true)
        progress.readEvent(
            #"{"kind":"event","payload":{"kind":"testStarted","testID":"TL.topLevel()\/T.swift:2:2"}}"#, at: 1)
        XCTAssertEqual(progress.running, ["TL.topLevel()": 1])
        let pattern = try NSRegularExpression(pattern: SwiftTestInvocation.exactly("TL.topLevel()"))
        let streamID = "TL.topLevel()/T.swift:2:2"
        XCTAssertNotNil(pattern.firstMatch(in: streamID, range: NSRange(streamID.startIndex..., in: streamID)))
    }

    /// A Swift Testing test named by a raw identifier (``@Test func `adds two numbers`()``) is
    /// listed with its spaces: dropped from the list, it never ran again after a hang, unnamed.
    func testARawIdentifierIsListedAndRunAgainByName() throws {
        let id = "M.S/`adds two numbers`()"
        XCTAssertEqual(
            TestList.parse("\(id)\nM.S/plain()\nwarning: see /tmp/x for more\nM.S/`open two()\nM.C/a `b` c\n"),
            [id, "M.S/plain()"])
        XCTAssertEqual(TestList.key(of: id), "`adds two numbers`()")
        let pattern = try NSRegularExpression(pattern: SwiftTestInvocation.exactly(id))
        let streamID = id + "/S.swift:3:4"
        XCTAssertNotNil(pattern.firstMatch(in: streamID, range: NSRange(streamID.startIndex..., in: streamID)))
    }

    // MARK: - Test lines

    func testProgressFollowsXCTestAndSwiftTestingLines() {
        var progress = TestProgress()
        progress.read("Test Case 'OrderTests.test1' started at 2026-11-27 00:08:58.895", at: 1)
        XCTAssertEqual(progress.running, ["OrderTests.test1": 1])
        progress.read("Test Case 'OrderTests.test1' passed (0.002 seconds)", at: 2)
        progress.read("Test Case 'OrderTests.test2' started at 2026-11-27 00:08:58.897", at: 3)
        progress.read("Test Case 'OrderTests.test2' failed (0.0 seconds)", at: 3)
        progress.read("Test Case 'OrderTests.test3' started at 2026-11-27 00:08:58.897", at: 4)
        // XCTest's part ended with test3 unfinished: Swift Testing's start says it crashed.
        progress.read("◇ Test run started.", at: 5)
        progress.read("◇ Test firstPasses() started.", at: 5)
        XCTAssertEqual(progress.running, ["firstPasses()": 5])
        progress.read("✔ Test firstPasses() passed after 0.001 seconds.", at: 6)
        progress.read("◇ Test second() started.", at: 6)
        progress.read("✘ Test second() recorded an issue at Tests.swift:9:5: Expectation failed", at: 6)
        progress.read("✘ Test second() failed after 0.002 seconds with 1 issue.", at: 6)
        // `Test.cancel()` (Swift 6.3.1's line): left running, it was called crashed.
        progress.read("◇ Test cancelsItself() started.", at: 6)
        progress.read("➜ Test cancelsItself() was cancelled after 0.001 seconds: \"not today\"", at: 6)
        progress.read("✔ Test run with 2 tests in 1 suite passed after 0.003 seconds.", at: 7)
        XCTAssertEqual(
            progress.ended.map { $0.key },
            ["OrderTests.test1", "OrderTests.test2", "OrderTests.test3", "firstPasses()", "second()", "cancelsItself()"])
        XCTAssertEqual(progress.ended.map { $0.ending }, [.passed, .failed, .crashed, .passed, .failed, .skipped])
        XCTAssertTrue(progress.running.isEmpty)
        // Apple's XCTest (macOS; on stderr) names a test `-[Module.Class test]`: read under the
        // key of `swift test list`'s id, as Linux's `Class.test` is, so the rounds after a hang
        // do not run again the tests a Mac ran.
        var mac = TestProgress()
        let id = "WatchFixtureTests.OrderTests/test1PassesQuickly"
        mac.read("Test Case '-[WatchFixtureTests.OrderTests test1PassesQuickly]' started.", at: 1)
        XCTAssertEqual(Array(mac.running.keys), [TestList.key(of: id)])
        mac.read("Test Case '-[WatchFixtureTests.OrderTests test1PassesQuickly]' passed (0.001 seconds).", at: 2)
        mac.read("Test Case '-[WatchFixtureTests.OrderTests test6FailsAnAssertion]' started.", at: 2)
        mac.read("Test Case '-[WatchFixtureTests.OrderTests test6FailsAnAssertion]' failed (0.002 seconds).", at: 3)
        XCTAssertEqual(
            mac.ended.map { "\($0.key) \($0.ending)" },
            ["OrderTests.test1PassesQuickly passed", "OrderTests.test6FailsAnAssertion failed"])
        XCTAssertEqual(mac.ending(of: TestList.key(of: id)), .passed)
        // A selector Objective-C gives a `throws` or an `async` test reads as the Swift name,
        // in a line and in a list alike; a Linux name has no `:` and is kept whole.
        mac.read("Test Case '-[WatchFixtureTests.OrderTests test3ThrowsAndReturnError:]' started.", at: 3)
        mac.read("Test Case '-[WatchFixtureTests.OrderTests test4AwaitsWithCompletionHandler:]' started.", at: 3)
        XCTAssertEqual(mac.running.keys.sorted(), ["OrderTests.test3Throws", "OrderTests.test4Awaits"])
        XCTAssertEqual(TestList.key(of: "M.OrderTests/test4AwaitsWithCompletionHandler:"), "OrderTests.test4Awaits")
        XCTAssertEqual(
            TestList.key(of: "M.OrderTests/testWithCompletionHandler"), "OrderTests.testWithCompletionHandler")
        XCTAssertEqual(TestList.key(of: "M.OrderTests/WithCompletionHandler:"), "OrderTests.WithCompletionHandler:")
    }

    func testAParameterizedTestEndsUnderItsOwnName() {
        var progress = TestProgress()
        progress.read("◇ Test gate(with:) started.", at: 1)
        progress.read("◇ Test case passing 1 argument choice → .queue to gate(with:) started.", at: 1)
        progress.read("✔ Test gate(with:) with 2 test cases passed after 2.008 seconds.", at: 3)
        XCTAssertTrue(progress.running.isEmpty, "\(progress.running)")
        XCTAssertEqual(progress.ending(of: "gate(with:)"), .passed)
    }

    /// `--xunit-output` across rounds: each round writes a file of its own (always given as two
    /// words), and the user's files are merged from them, `lab watch`'s hangs, crashes and tests
    /// not run replacing what a file says, and verdicts no file holds added.
    func testXUnitFilesAreMergedAcrossRounds() throws {
        XCTAssertEqual(XUnitRounds.swiftTestingPath("out/r.xml"), "out/r-swift-testing.xml")
        XCTAssertEqual(XUnitRounds.swiftTestingPath("a.b/noext"), "a.b/noext-swift-testing")
        let invocation = try XCTUnwrap(
            SwiftTestInvocation(["swift", "test", "--filter", "--xunit-output", "--xunit-output=r.xml"]))
        let rounds = try XCTUnwrap(XUnitRounds(invocation))
        defer { try? FileManager.default.removeItem(atPath: rounds.folder) }
        XCTAssertEqual(rounds.path, "r.xml")
        XCTAssertEqual(
            rounds.command(["swift", "test", "--filter", "--xunit-output", "--xunit-output=r.xml"], round: 2),
            ["swift", "test", "--filter", "--xunit-output", "--xunit-output", rounds.folder + "/round-2.xml"],
            "a filter's value is left alone")
        let xctest = """
            <testsuites>
            <testsuite name="TestResults" errors="0" tests="2" failures="1" time="0.02">
            <testcase classname="M.OrderTests" name="test1" time="0.01">
            </testcase>
            <testcase classname="M.OrderTests" name="test2" time="0.01">
            <failure message="failure"></failure>
            </testcase>
            </testsuite>
            </testsuites>
            """
        let first = XUnitRounds.cases(in: xctest)
        XCTAssertEqual(first.map(\.name), ["test1", "test2"])
        XCTAssertEqual(first.map(\.time), [0.01, 0.01])
        let second = XUnitRounds.cases(in: #"<testcase classname="M.OrderTests" name="test1" time="0.5" />"#)
        let merged = XUnitRounds.merge(
            [first, second],
            verdicts: [
                .init(id: "M.OrderTests/test2", ending: .hung, message: "hung after 2.00 s: in <wait> & \"so\""),
                .init(id: "M.OrderTests/test1", ending: .passed),
                .init(id: "M.HeldTests/test3", ending: .notRun, message: "not run: held"),
                .init(id: "M.Suite/Inner/f(x:)", ending: .passed),
            ])
        XCTAssertEqual(merged.map(\.name), ["test1", "test2", "test3", "f(x:)"])
        XCTAssertEqual(merged[0].time, 0.5, "the later round's case")
        XCTAssertTrue(
            merged[1].xml.contains(#"<failure message="hung after 2.00 s: in &lt;wait&gt; &amp; &quot;so&quot;" />"#),
            merged[1].xml)
        XCTAssertEqual(merged[3].classname, "M.Suite.Inner", "nested suites as Swift Testing writes them")
        let document = XUnitRounds.document(merged)
        XCTAssertTrue(
            document.contains(#"errors="1" tests="4" failures="1" skipped="0" time="0.5""#), document)
        XCTAssertEqual(XUnitRounds.cases(in: document), merged, "the written file reads back the same")
        // Swift Testing writes a raw identifier's name as it is, `>` and `'` included: read whole,
        // and keyed as lab watch's own case for it is (which escapes it), so it is not added twice.
        let raw = XUnitRounds.cases(in: #"<testcase classname="TL" name="`it's > 0`()" time="0.1" />"#)
        XCTAssertEqual(raw.map(\.name), ["`it's > 0`()"])
        let top = XUnitRounds.merge([raw], verdicts: [.init(id: "TL.`it's > 0`()", ending: .passed)])
        XCTAssertEqual(top.count, 1, "\(top)")
        XCTAssertEqual(XUnitRounds.testCase(.init(id: "TL.topLevel()", ending: .passed)).classname, "TL")
        XCTAssertEqual(XUnitRounds.escaped("a\u{1b}[31mb\tc"), "a[31mb&#9;c", "no control character in XML")
        XCTAssertEqual(XUnitRounds.unescaped("&lt;x&gt; &amp;&#10;&#x27;&bogus;"), "<x> &\n'&bogus;")
        // With `--disable-xctest`, SwiftPM writes Swift Testing's results at the path itself.
        let alone = try XCTUnwrap(
            XUnitRounds(try XCTUnwrap(SwiftTestInvocation(["swift", "test", "--disable-xctest", "--xunit-output", "r.xml"]))))
        XCTAssertEqual(alone.file(swiftTesting: true, at: "r.xml"), "r.xml")
        XCTAssertFalse(alone.writesXCTest)
        XCTAssertEqual(rounds.file(swiftTesting: true, at: "r.xml"), "r-swift-testing.xml")
        XCTAssertFalse(rounds.writesXCTest, "SwiftPM writes XCTest's file with --parallel only")
    }

    /// A run that failed outside every test (quiet at its end, a crash no test made, an
    /// interrupt, SwiftPM's own error) has a failing case in its `--xunit-output` file: a CI that
    /// reads the file alone never reads a red run as green.
    func testARunThatFailedOutsideItsTestsFailsItsXUnitFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lab-xunit-run-\(getpid())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/r.xml"
        let rounds = try XCTUnwrap(XUnitRounds(try XCTUnwrap(SwiftTestInvocation(["swift", "test", "--xunit-output", path]))))
        // A serial run: SwiftPM writes Swift Testing's file only, so `lab watch`'s own cases go there.
        func written(status: Int32, verdicts: [XUnitRounds.Verdict] = [], extra: [XUnitRounds.Case] = []) throws
            -> [XUnitRounds.Case]
        {
            try rounds.write(rounds: 1, verdicts: verdicts, extra: extra, status: status)
            let file = XUnitRounds.swiftTestingPath(path)
            return XUnitRounds.cases(in: try String(contentsOfFile: file, encoding: .utf8))
        }
        XCTAssertEqual(try written(status: 0), [], "a run that passed with no test")
        let build = try written(status: 1)
        XCTAssertEqual(build.map { "\($0.classname)/\($0.name)" }, ["lab watch/swift test"])
        XCTAssertTrue(
            build[0].xml.contains(#"<failure message="swift test ended with status 1, and no test failed"#), build[0].xml)
        let failing = XUnitRounds.Verdict(id: "M.S/f()", ending: .failed)
        XCTAssertEqual(try written(status: 1, verdicts: [failing]).map(\.name), ["f()"], "its failing test says it")
        let quiet = WatchCommand.xunitRunCases(TestProgress(), .quiet, quietTimeout: 300, list: nil)
        let ended = try written(status: 124, verdicts: [.init(id: "M.S/f()", ending: .passed)], extra: quiet)
        XCTAssertEqual(ended.map(\.name), ["f()", "quiet"])
        XCTAssertTrue(ended[1].xml.contains(#"<failure message="ended for no output and no CPU use for 300.0 s"#), ended[1].xml)
        let interrupted = WatchCommand.xunitRunCases(TestProgress(), .interrupted, quietTimeout: 300, list: nil)
        XCTAssertTrue(interrupted.allSatisfy(\.fails) && interrupted.count == 1, "\(interrupted)")
        // A process died with two tests and no crash report; run alone, neither crashed.
        let start = #"{"kind":"event","payload":{"kind":"testStarted","testID":"M.S/%@/S.swift:5:6"},"version":0}"#
        var progress = TestProgress(swiftTestingFromEvents: true)
        for name in ["a()", "b()"] { progress.readEvent(Substring(start.replacingOccurrences(of: "%@", with: name)), at: 1) }
        progress.read("error: Process '/w/P.xctest --testing-library swift-testing' exited with unexpected signal code 4", at: 2)
        progress.settleCrash()
        XCTAssertEqual(progress.unpinnedCrashes, [["M.S/a()", "M.S/b()"]])
        var never = progress
        never.finishUnpinned()  // never run alone: each is crashed, one of two, in its own case
        XCTAssertEqual(WatchCommand.xunitRunCases(never, nil, quietTimeout: 300, list: nil), [])
        for key in ["M.S/a()", "M.S/b()"] { progress.mark(key, .passed) }
        let crash = WatchCommand.xunitRunCases(progress, nil, quietTimeout: 300, list: nil)
        XCTAssertEqual(crash.map(\.name), ["crash"])
        XCTAssertTrue(crash[0].xml.contains("run alone, none crashed"), crash[0].xml)
        // One of them crashed alone: its own case fails the file.
        progress.mark("M.S/b()", .crashed)
        XCTAssertEqual(WatchCommand.xunitRunCases(progress, nil, quietTimeout: 300, list: nil), [])
    }

    /// XCTest's suite lines tell which class is open while no test runs (its class `setUp()` or
    /// `tearDown()`), so that quiet there names it; the root and the bundle are not classes.
    func testTheOpenXCTestClassIsFollowedBetweenItsTests() {
        var progress = TestProgress()
        progress.read("Test Suite 'Selected tests' started at 2026-11-28 23:40:01.100", at: 1)
        progress.read("Test Suite 'WatchFixturePackageTests.xctest' started at 2026-11-28 23:40:01.100", at: 1)
        XCTAssertNil(progress.openClass, "\(progress.openSuites)")
        progress.read("Test Suite 'HeldClassTests' started at 2026-11-28 23:40:01.101", at: 1)
        XCTAssertEqual(progress.openClass, "HeldClassTests")
        progress.read("Test Case 'HeldClassTests.testFirstOfItsClass' started at 2026-11-28 23:40:01.102", at: 1)
        progress.read("Test Case 'HeldClassTests.testFirstOfItsClass' passed (0.001 seconds)", at: 1)
        XCTAssertEqual(progress.openClass, "HeldClassTests", "its tearDown() is still to run")
        progress.read("Test Suite 'HeldClassTests' failed at 2026-11-28 23:40:01.103", at: 1)
        XCTAssertNil(progress.openClass)
        XCTAssertEqual(progress.openSuites, ["Selected tests", "WatchFixturePackageTests.xctest"])
        progress.read("Test Suite 'OrderTests' started at 2026-11-28 23:40:01.104", at: 1)
        progress.settleCrash()
        XCTAssertEqual(progress.openSuites, [], "a round's suites end with it")
        // A class whose end line was lost closes as the next one starts (classes do not nest);
        // XCTest's part closes them all as its process dies or Swift Testing's part starts.
        progress.read("Test Suite 'WatchFixturePackageTests.xctest' started at 2026-11-28 23:40:02.000", at: 2)
        progress.read("Test Suite 'OrderTests' started at 2026-11-28 23:40:02.001", at: 2)
        progress.read("Test Suite 'ZTests' started at 2026-11-28 23:40:02.002", at: 2)
        XCTAssertEqual(progress.openSuites, ["WatchFixturePackageTests.xctest", "ZTests"])
        progress.read("Test Case 'ZTests.testA' started at 2026-11-28 23:40:02.003", at: 2)
        XCTAssertEqual(progress.openClassTests, ["ZTests.testA"])
        progress.read("error: Process '/b/P.xctest' exited with unexpected signal code 4", at: 3)
        XCTAssertNil(progress.openClass, "its process died: no class of it is open")
        progress.read("Test Suite 'ZTests' started at 2026-11-28 23:40:02.004", at: 3)
        progress.read("◇ Test run started.", at: 3)
        XCTAssertNil(progress.openClass, "Swift Testing's part: XCTest's is over")
        // Swift Testing's suites, from its event stream: the one open suite that holds no other.
        func event(_ kind: String, _ id: String) {
            progress.readEvent(#"{"kind":"event","payload":{"kind":"\#(kind)","testID":"\#(id)"}}"#, at: 4)
        }
        event("testStarted", "M.Outer")
        event("testStarted", "M.Outer\\/Inner")
        XCTAssertEqual(progress.heldSwiftTestingSuite, "M.Outer/Inner")
        event("testStarted", "M.Other")
        XCTAssertNil(progress.heldSwiftTestingSuite, "two suites open: which held the run is not known")
        event("testEnded", "M.Other")
        event("testStarted", "M.Outer\\/Inner\\/f()\\/S.swift:3:4")
        XCTAssertEqual(progress.running.keys.sorted(), ["M.Outer/Inner/f()"])
        progress.settleCrash()
        XCTAssertNil(progress.heldSwiftTestingSuite, "a round's suites end with it")
    }

    /// Which tests a held class costs. Linux's XCTest prints a class without its module: the
    /// class is the module's whose test started in it (held in its `tearDown()`, none of the
    /// other module's namesake class is touched); with none started (its `setUp()`), the first
    /// listed with a test not ended. A suite no listed class has is no class (quiet elsewhere).
    func testAHeldClassIsTheModulesWhoseTestStartedInIt() throws {
        let invocation = try XCTUnwrap(SwiftTestInvocation(["swift", "test"]))
        let listing = TestList.Listing(
            ids: ["A.HeldTests/testOne", "B.HeldTests/testTwo", "B.OtherTests/testThree"], displayNames: [:])
        func held(_ started: [String], ended: [String]) -> (ids: [String]?, notRun: [String]) {
            var progress = TestProgress()
            for key in ended {
                progress.read("Test Case '\(key)' started at 2026-11-28 23:40:00.000", at: 0)
                progress.read("Test Case '\(key)' passed (0.001 seconds)", at: 0)
            }
            let stuck = WatchRound.StuckClass(
                name: "HeldTests", seconds: 2, method: nil, stuckAt: "", started: started)
            let ids = WatchCommand.markNotRun(in: listing, &progress, invocation: invocation, inClass: stuck)
            return (ids, progress.ended.filter { $0.ending == .notRun }.map(\.key))
        }
        let tearDown = held(["HeldTests.testOne"], ended: ["HeldTests.testOne"])
        XCTAssertEqual(tearDown.ids, [])
        XCTAssertEqual(tearDown.notRun, [], "B's HeldTests never started: its test is not marked")
        XCTAssertEqual(held([], ended: []).ids, ["A.HeldTests/testOne"])
        XCTAssertEqual(held([], ended: ["HeldTests.testOne"]).ids, ["B.HeldTests/testTwo"])
        let other = WatchRound.StuckClass(name: "CustomSuite", seconds: 2, method: nil, stuckAt: "")
        var progress = TestProgress()
        XCTAssertNil(WatchCommand.markNotRun(in: listing, &progress, invocation: invocation, inClass: other))
    }

    /// A late test spared once (no frame of it yet, or its process writing a crash report) gets
    /// its timeout again; hung later, its report counted from that second start (`hung after 2.04
    /// s` for a test that had run 4 s). Its time is from its start, and the restart is said.
    func testAHangAfterASecondChanceIsTimedFromTheTestsStart() {
        var progress = TestProgress()
        progress.read("Test Case 'OrderTests.test2' started at 2026-11-27 00:08:58.895", at: 1)
        progress.restart("OrderTests.test2", at: 4)
        let late = WatchReport.ran("OrderTests.test2", clock: 4, now: 6.5, progress)
        XCTAssertEqual(late.seconds, 5.5)
        XCTAssertEqual(late.text, "has run for 5.50 s (its timeout started again 2.50 s ago)")
        progress.read("Test Case 'OrderTests.test3' started at 2026-11-27 00:08:58.895", at: 2)
        XCTAssertEqual(WatchReport.ran("OrderTests.test3", clock: 2, now: 5, progress).text, "has run for 3.00 s")
        // The machine paused for 5 s (a Mac asleep, a stopped tree): the running tests' clocks
        // skip it, so no test's timeout is spent by it (`WatchRound.pauseSkipped`).
        progress.skip(5)
        XCTAssertEqual(progress.running, ["OrderTests.test2": 9, "OrderTests.test3": 7])
    }

    /// Read from its lines, an issue's message is the test's own text: a known issue of a passing
    /// test saying `request failed after 3 retries` made a phantom failed test (`1 failed`, status
    /// 1). A verdict counts only right after the test's name, and issue lines are no verdict; but
    /// an issue recorded after its test passed fails it, and one of no test fails the run.
    func testAnIssueMessageIsNoVerdictButALateIssueFails() {
        var progress = TestProgress()
        progress.read("◇ Test fetch() started.", at: 1)
        progress.read(
            "✔ Test fetch() recorded a known issue at NetTests.swift:12:7: Issue recorded: request failed after 3 retries",
            at: 1)
        progress.read("✔ Test fetch() passed after 0.002 seconds with 1 known issue.", at: 2)
        progress.read("◇ Test \"loads\" started.", at: 2)
        progress.read("✘ Test \"loads\" recorded an issue at L.swift:4:5: Issue recorded: server not started.", at: 2)
        progress.read("✘ Test \"loads\" recorded an issue at L.swift:5:5: job (7) skipped", at: 2)
        progress.read("✘ Test \"loads\" failed after 0.003 seconds with 2 issues.", at: 3)
        progress.read("➜ Test later() skipped: \"it failed after 2 tries\"", at: 3)
        progress.read("◇ Test gate(with:) started.", at: 3)
        progress.read("✘ Test gate(with:) with 2 test cases failed after 0.1 seconds with 1 issue.", at: 4)
        XCTAssertEqual(
            progress.ended.map { "\($0.key) \($0.ending)" },
            ["fetch() passed", "\"loads\" failed", "later() skipped", "gate(with:) failed"])
        XCTAssertTrue(progress.running.isEmpty, "\(progress.running)")
        // An issue its task records after a test passed fails it; a known one does not; one of
        // no test (`«unknown»`: a detached task's) fails the run (Swift Testing 6.3.1's lines).
        progress.read("✔ Test fetch() recorded a known issue at N.swift:12:7: Issue recorded: late, known", at: 4)
        progress.read("✘ Test later() recorded an issue at L.swift:5:87: Issue recorded", at: 4)
        XCTAssertEqual(progress.ending(of: "later()"), .skipped, "a skipped test is left as it is")
        XCTAssertEqual(progress.ending(of: "fetch()"), .passed)
        progress.read("✘ Test fetch() recorded an issue at L.swift:5:87: Issue recorded", at: 4)
        XCTAssertEqual(progress.ending(of: "fetch()"), .failed)
        progress.read("✘ Test «unknown» recorded an issue at L.swift:10:48: Issue recorded", at: 4)
        XCTAssertEqual(progress.issuesOutsideTests, 1)
        // The same from the event stream.
        var events = TestProgress(swiftTestingFromEvents: true)
        func event(_ kind: String, _ id: String?, _ symbol: String) {
            let test = id.map { #","testID":"\#($0)\/L.swift:4:2""# } ?? ""
            events.readEvent(
                Substring(
                    #"{"kind":"event","payload":{"kind":"\#(kind)","messages":[{"symbol":"\#(symbol)","text":"x"}]"#
                        + test + "},\"version\":0}"), at: 5)
        }
        event("testStarted", "M.f()", "default")
        event("issueRecorded", "M.f()", "fail")  // while it runs: its end says
        event("testEnded", "M.f()", "fail")
        event("testStarted", "M.g()", "default")
        event("testEnded", "M.g()", "pass")
        event("issueRecorded", "M.g()", "passWithKnownIssue")
        XCTAssertEqual(events.ending(of: "M.g()"), .passed)
        event("issueRecorded", "M.g()", "fail")
        event("issueRecorded", nil, "fail")
        XCTAssertEqual(events.ended.map { "\($0.key) \($0.ending)" }, ["M.f() failed", "M.g() failed"])
        XCTAssertEqual(events.issuesOutsideTests, 1)
        let said = WatchCommand.xunitRunCases(events, nil, quietTimeout: 300, list: nil)
        XCTAssertEqual(said.map(\.name), ["issues outside tests"])
    }

    /// A parameterized test's cases may together run far longer than `--test-timeout` (16 cases
    /// of 0.5 s were called hung at 2 s): each `testCaseEnded` of the event stream starts its
    /// clock again, and its report still counts from the test's start.
    func testEachTestCaseEndStartsAParameterizedTestsClockAgain() {
        var progress = TestProgress(swiftTestingFromEvents: true)
        func event(_ kind: String) -> Substring {
            """
            {"kind":"event","payload":{"kind":"\(kind)","messages":[],\
            "testID":"M.S/cases(x:)/S.swift:3:4"},"version":0}
            """
        }
        progress.readEvent(event("testStarted"), at: 10)
        for n in 1...16 {
            progress.readEvent(event("testCaseStarted"), at: 10 + 0.5 * Double(n - 1))
            progress.readEvent(event("testCaseEnded"), at: 10 + 0.5 * Double(n))
        }
        XCTAssertEqual(progress.running, ["M.S/cases(x:)": 18], "the clock starts again as each case ends")
        let late = WatchReport.ran("M.S/cases(x:)", clock: 18, now: 20, progress)
        XCTAssertEqual(late.seconds, 10, "the test's time, not its last case's")
        XCTAssertEqual(late.text, "has run for 10.0 s (its 16th test case ended 2.00 s ago)")
        XCTAssertEqual([1, 2, 3, 4, 11, 12, 13, 21, 22, 111].map(WatchReport.ordinal),
            ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "111th"])
        progress.readEvent(event("testEnded"), at: 20)
        XCTAssertEqual(progress.ending(of: "M.S/cases(x:)"), .passed)
        progress.readEvent(event("testCaseEnded"), at: 21)  // of a test not running: starts nothing
        XCTAssertTrue(progress.running.isEmpty, "\(progress.running)")
    }

    /// Linux's XCTest prints `FooTests.testX` of two test targets alike: the second's start was
    /// ignored as that of a test that had ended, so its hang was never timed and its verdict was
    /// the first's. The next start of an ended name is its next namesake, as the list numbers
    /// them; `--parallel` (whose lines replay a failed test's output after its verdict) does not.
    func testXCTestNamesakesOfTwoTargetsAreFollowedInTurn() {
        var progress = TestProgress()
        let started = "started at 2026-11-28 14:13:00.000"
        progress.read(Substring("Test Case 'FooTests.testX' \(started)"), at: 1)
        progress.read("Test Case 'FooTests.testX' passed (0.001 seconds)", at: 2)
        progress.read(Substring("Test Case 'FooTests.testX' \(started)"), at: 3)
        XCTAssertEqual(progress.running, ["FooTests.testX#2": 3], "the second target's test is timed")
        progress.read("Test Case 'FooTests.testX' failed (0.002 seconds)", at: 4)
        progress.read(Substring("Test Case 'FooTests.testY' \(started)"), at: 4)
        progress.read("Test Case 'FooTests.testY' passed (0.001 seconds)", at: 5)
        XCTAssertEqual(
            progress.ended.map { "\($0.key) \($0.ending)" },
            ["FooTests.testX passed", "FooTests.testX#2 failed", "FooTests.testY passed"])
        var listing = TestList.Listing(ids: ["ModA.FooTests/testX", "ModB.FooTests/testX", "ModB.FooTests/testY"])
        XCTAssertEqual(listing.ids.map(listing.key(of:)), ["FooTests.testX", "FooTests.testX#2", "FooTests.testY"])
        XCTAssertEqual(listing.id(of: "FooTests.testX#2"), "ModB.FooTests/testX")
        let stuck = StackGroup.fold([
            ThreadStack(thread: "main", tid: 1, state: "S", frames: ["ModB.FooTests.testX() -> () (F.swift:9)"])
        ])[0]
        XCTAssertTrue(WatchReport.mentions(stuck, ["FooTests.testX#2"]), "its stack is the function's")
        // `--parallel`: one name, as before.
        listing.namesakesInTurn = false
        XCTAssertEqual(listing.key(of: "ModB.FooTests/testX"), "FooTests.testX")
        var parallel = TestProgress()
        parallel.namesakesInTurn = false
        parallel.running(["FooTests.testX"], at: 1)
        parallel.mark("FooTests.testX", .hung)
        parallel.read(Substring("Test Case 'FooTests.testX' \(started)"), at: 2)
        XCTAssertTrue(parallel.running.isEmpty, "a hung test's output printed again starts nothing")
        // With `--filter ModB`, ModB's test is the first `FooTests.testX` to run: the list numbers
        // the selected tests only, or it ran again after a hang as `#2`, and was counted twice.
        let filtered = WatchCommand.listing(
            "ModA.FooTests/testX\nModB.FooTests/testX\nModB.FooTests/testY\n", events: "",
            invocation: SwiftTestInvocation(["swift", "test", "--filter", "ModB"])!, swiftTestingByID: true)
        XCTAssertEqual(filtered.ids, ["ModB.FooTests/testX", "ModB.FooTests/testY"])
        XCTAssertEqual(filtered.key(of: "ModB.FooTests/testX"), "FooTests.testX")
    }

    /// A test process that died with no test running (a class's `tearDown()`, its exit) is
    /// noted with the last test that had ended: the tests after it did not run.
    func testAProcessThatDiesBetweenTestsIsNoted() {
        var progress = TestProgress()
        progress.read("Test Case 'ATests.test1' started at 2026-11-28 14:13:00.000", at: 1)
        progress.read("Test Case 'ATests.test1' passed (0.001 seconds)", at: 2)
        progress.read("error: Process '/b/P.xctest' exited with unexpected signal code 4", at: 3)
        XCTAssertEqual(progress.ended.map { "\($0.key) \($0.ending)" }, ["ATests.test1 passed"])
        XCTAssertEqual(progress.diedBetweenTests.map { "\($0.after ?? "-") \($0.signal)" }, ["ATests.test1 4"])
        let said = WatchCommand.diedBetweenTests(progress.diedBetweenTests[0], progress: progress, list: nil)
        XCTAssertTrue(said.hasPrefix("a test process died of SIGILL (4) with no test running (after ATests.test1 ended)"), said)
        let cases = WatchCommand.xunitRunCases(progress, nil, quietTimeout: 300, list: nil)
        XCTAssertEqual(cases.map(\.name), ["crash"])
        // Ended by lab watch (a hang's tree), it is no death of its own.
        var ended = TestProgress()
        ended.treeEnded()
        ended.read("error: Process '/b/P.xctest' exited with unexpected signal code 9", at: 3)
        XCTAssertTrue(ended.diedBetweenTests.isEmpty)
    }

    func testParallelRunsAreReadFromTheirProgressAndCrashLines() {
        var progress = TestProgress()
        progress.running(["OrderTests.test1", "OrderTests.test7"], at: 1)
        progress.read("[1/2] Testing M.OrderTests/test1", at: 2)
        progress.read("[2/2] Testing M.OrderTests/test7", at: 2)
        progress.read("error: Process '/b/P.xctest M.OrderTests/test7' exited with unexpected signal code 4", at: 3)
        XCTAssertEqual(progress.ending(of: "OrderTests.test1"), .passed)
        XCTAssertEqual(progress.ending(of: "OrderTests.test7"), .crashed)
        // A process that exits during its test (`exit(3)`, Swift 6.3.1's lines): no signal, so no
        // line of SwiftPM's, but its output, printed at the end, starts the test and never ends it.
        progress = TestProgress()
        progress.running(["ExitTests.testAExits", "ExitTests.testBPasses", "ExitTests.testCFails"], at: 1)
        for (n, test) in ["testAExits", "testBPasses", "testCFails"].enumerated() {
            progress.read(Substring("[\(n + 1)/3] Testing M.ExitTests/\(test)"), at: 2)
        }
        progress.read("Test Case 'ExitTests.testAExits' started at 2026-11-27 22:57:13.228", at: 3)
        progress.read("Test Case 'ExitTests.testCFails' started at 2026-11-27 22:57:13.228", at: 3)
        progress.read("Test Case 'ExitTests.testCFails' failed (0.001 seconds)", at: 3)
        XCTAssertTrue(progress.running.isEmpty, "a replayed start starts nothing: \(progress.running)")
        progress.read("◇ Test run started.", at: 4)
        XCTAssertEqual(
            progress.ended.map { "\($0.key) \($0.ending)" },
            ["ExitTests.testAExits crashed", "ExitTests.testBPasses passed", "ExitTests.testCFails failed"])

        // The crashed process's command line holds paths and option values besides the test:
        // the event stream's file was read as a test id (a bogus test "crashed" beside the real
        // one, on a Swift Testing crash), and macOS's `xctest -XCTest M.C/t /…/P.xctest` named two.
        progress = TestProgress(swiftTestingFromEvents: true)
        progress.readEvent(
            #"{"kind":"event","payload":{"kind":"testStarted","testID":"M.S/crashes()/C.swift:5:6"},"version":0}"#, at: 1)
        progress.read(
            "error: Process '/w/.build/debug/PPackageTests.xctest --skip-build --filter CrashSuite"
                + " --event-stream-output-path /tmp/lab-watch-events-1322-544707671.jsonl --event-stream-version 0"
                + " --testing-library swift-testing' exited with unexpected signal code 4", at: 2)
        XCTAssertEqual(progress.ended.map { "\($0.key) \($0.ending)" }, ["M.S/crashes() crashed"])

        var mac = TestProgress()
        mac.running(["OrderTests.test1", "OrderTests.test7"], at: 1)
        mac.read(
            "error: Process '/Applications/Xcode.app/Contents/Developer/usr/bin/xctest -XCTest M.OrderTests/test7"
                + " /Users/a b/.build/arm64-apple-macosx/debug/PPackageTests.xctest' exited with unexpected signal code 4",
            at: 2)
        XCTAssertEqual(mac.ended.map { "\($0.key) \($0.ending)" }, ["OrderTests.test7 crashed"])
        XCTAssertEqual(mac.running.keys.sorted(), ["OrderTests.test1"])
        for word in ["M.C/t", "M.Outer.Inner/test_2"] { XCTAssertTrue(TestProgress.isXCTestID(Substring(word)), word) }
        for word in ["/tmp/e.jsonl", ".build/x", "Tests/Fixture", "A/b", "^M\\.C/t$", "M.C/t/x", "M.C/", "1M.C/t"] {
            XCTAssertFalse(TestProgress.isXCTestID(Substring(word)), word)
        }
    }

    /// `--parallel` prints a failed test's output after the last test: a test whose process
    /// ended before the tree was ended for a hang has no verdict yet, and runs again.
    func testAParallelTestWithoutItsVerdictRunsAgain() {
        var progress = TestProgress()
        progress.running(["OrderTests.test1", "OrderTests.test2", "OrderTests.test3"], at: 1)
        progress.read("[1/3] Testing M.OrderTests/test1", at: 2)
        progress.read("[2/3] Testing M.OrderTests/test3", at: 2)
        progress.read("Test Case 'OrderTests.test3' failed (0.001 seconds)", at: 2)
        progress.mark("OrderTests.test2", .hung)
        progress.forgetProvisional()
        XCTAssertNil(progress.ending(of: "OrderTests.test1"), "its verdict never came")
        XCTAssertEqual(progress.ending(of: "OrderTests.test2"), .hung)
        XCTAssertEqual(progress.ending(of: "OrderTests.test3"), .failed)
        // A failed process's output printed after it: a `measure` block's line is no verdict, so
        // a process that ended after it (`exit(3)`) ended its test, which crashed.
        var measured = TestProgress()
        measured.running(["PerfTests.testSpeed"], at: 1)
        measured.read("[1/1] Testing M.PerfTests/testSpeed", at: 2)
        measured.read("Test Case 'PerfTests.testSpeed' started at 2026-11-29 02:40:00.000", at: 3)
        measured.read(
            "Test Case 'PerfTests.testSpeed' measured [Time, seconds] average: 0.001, relative standard deviation: 1%",
            at: 3)
        measured.settleCrash()
        XCTAssertEqual(measured.ending(of: "PerfTests.testSpeed"), .crashed)
    }

    /// `--parallel` runs each XCTest test in a process of its own, named by its command line:
    /// Linux's form and macOS's (through `xctest -XCTest`), paths with spaces included.
    func testAParallelTestIsNamedByItsProcessOnLinuxAndMacOS() {
        let linux = "/w/My Lab/.build/debug/PPackageTests.xctest M.OrderTests/test2Deadlocks"
        let darwin =
            "/Applications/Xcode.app/Contents/Developer/usr/bin/xctest -XCTest M.OrderTests/test2Deadlocks "
            + "/Users/a b/.build/arm64-apple-macosx/debug/PPackageTests.xctest"
        // SwiftPM's swiftbuild build system (`--build-system swiftbuild`; Swift 6.3.1's process):
        let runner = "/w/.build/out/Products/Debug-linux/PTests-test-runner M.OrderTests/test2Deadlocks"
        XCTAssertEqual(WatchRound.parallelTest(commandLine: linux), "OrderTests.test2Deadlocks")
        XCTAssertEqual(WatchRound.parallelTest(commandLine: darwin), "OrderTests.test2Deadlocks")
        XCTAssertEqual(WatchRound.parallelTest(commandLine: runner), "OrderTests.test2Deadlocks")
        for other in [
            "/w/.build/debug/PPackageTests.xctest", "/w/.build/debug/PPackageTests.xctest M.A/a,M.A/b",
            "/w/.build/debug/PPackageTests.xctest --testing-library swift-testing",
            "/usr/bin/swift-test --parallel --filter M.A/a", "/bin/sh -c x.xctest M.A/a",
            "/x/swiftpm-testing-helper --test-bundle-path /w/P.xctest --testing-library swift-testing",
        ] {
            XCTAssertNil(WatchRound.parallelTest(commandLine: other), other)
        }
        // Swift Testing's tests share one process, whatever their names.
        XCTAssertTrue(WatchReport.isXCTestKey("OrderTests.test2Deadlocks"))
        for key in ["deadlocksToo()", "sum(of:)", "\"Adds two numbers\""] {
            XCTAssertFalse(WatchReport.isXCTestKey(key), key)
        }
        // The test binaries come first in a hang's report.
        for binary in [
            linux, darwin, runner, "/w/.build/debug/PPackageTests.xctest", "/x/swiftpm-testing-helper --test",
            "/w/.build/out/Products/Debug-linux/PTests-test-runner --testing-library swift-testing",
        ] {
            XCTAssertTrue(WatchReport.isTestProcess(commandLine: binary), binary)
        }
        for other in ["/usr/bin/swift-test --parallel", "/bin/sh -c x.xctest M.A/a", "/bin/sh -c x-test-runner"] {
            XCTAssertFalse(WatchReport.isTestProcess(commandLine: other), other)
        }
        // A trapping test process's backtracer (its command line as Swift 6.3.1 started it): its
        // test crashed, and is not hung while the backtrace is written.
        for backtracer in [
            "swift-backtrace --unwind precise --demangle true --interactive false --color false --timeout 30",
            "/opt/swift/usr/libexec/swift/linux/swift-backtrace --unwind precise",
        ] {
            XCTAssertTrue(WatchReport.isBacktracer(commandLine: backtracer), backtracer)
        }
        for other in [linux, "/usr/bin/swift-test --filter swift-backtrace", "/w/swift-backtraces x"] {
            XCTAssertFalse(WatchReport.isBacktracer(commandLine: other), other)
        }
    }

    /// `--parallel`: only a hung test's process is ended, and SwiftPM goes on; a hung test stays
    /// hung whatever SwiftPM then says of its process. SwiftPM 6.3 says nothing of the SIGKILL
    /// (it leaves SIGINT, SIGKILL and SIGTERM out); a process that aborts on its own between its
    /// stacks and its end is reported like this.
    func testAHungParallelTestStaysHungWhenSwiftPMReportsItsSignal() {
        var progress = TestProgress()
        progress.running(["OrderTests.test1", "OrderTests.test2"], at: 1)
        progress.mark("OrderTests.test2", .hung)
        progress.read("[1/2] Testing M.OrderTests/test2", at: 7)
        progress.read("error: Process '/b/P.xctest M.OrderTests/test2' exited with unexpected signal code 6", at: 7)
        progress.read("[2/2] Testing M.OrderTests/test1", at: 7)
        XCTAssertEqual(progress.ending(of: "OrderTests.test2"), .hung)
        XCTAssertEqual(progress.ending(of: "OrderTests.test1"), .passed)
    }

    /// Swift Testing prints a test with a display name by that name, quoted; `swift test list`
    /// names it by its id, and its event stream pairs the two (a record as SwiftPM 6.3 writes it).
    func testADisplayNameIsPairedWithItsIdFromTheListsEventStream() {
        let stream = """
            {"kind":"test","payload":{"displayName":"passes first","id":"M.SerialSuite\\/firstPasses()\\/S.swift:6:6",\
            "isParameterized":false,"kind":"function","name":"firstPasses()"},"version":0}
            {"kind":"test","payload":{"id":"M.SerialSuite","kind":"suite","name":"SerialSuite"},"version":0}
            {"kind":"test","payload":{"id":"M.SerialSuite\\/lastPasses()\\/S.swift:10:6","kind":"function",\
            "name":"lastPasses()"},"version":0}
            not json
            """
        let listing = TestList.Listing(
            ids: ["M.OrderTests/test1", "M.SerialSuite/firstPasses()", "M.SerialSuite/lastPasses()"],
            displayNames: TestList.displayNames(eventStream: stream))
        XCTAssertEqual(listing.displayNames, ["M.SerialSuite/firstPasses()": "\"passes first\""])
        XCTAssertEqual(listing.key(of: "M.SerialSuite/firstPasses()"), "\"passes first\"")
        XCTAssertEqual(listing.key(of: "M.SerialSuite/lastPasses()"), "lastPasses()")
        XCTAssertEqual(listing.id(of: "\"passes first\""), "M.SerialSuite/firstPasses()")
        XCTAssertEqual(listing.id(of: "OrderTests.test1"), "M.OrderTests/test1")
    }

    /// Two suites' `check()` print the same line; Swift Testing's event stream (records as
    /// SwiftPM 6.3 writes them, cut) names each by its id, so a hang of the second is still
    /// timed after the first passed, and each gets its own verdict.
    func testSwiftTestingIsFollowedByIdThroughItsEventStream() {
        var progress = TestProgress(swiftTestingFromEvents: true)
        func event(_ kind: String, _ id: String?, _ symbol: String = "default") -> Substring {
            let test = id.map { ",\"testID\":\"M.\($0)\"" } ?? ""
            return """
                {"kind":"event","payload":{"instant":{"absolute":1},"kind":"\(kind)",\
                "messages":[{"symbol":"\(symbol)","text":"…"}]\(test)},"version":0}
                """
        }
        progress.read("Test Case 'OrderTests.test3' started at 2026-11-27 00:08:58.897", at: 1)
        progress.readEvent(event("runStarted", nil), at: 2)
        progress.readEvent(event("testStarted", "Early/first()/S.swift:2:6"), at: 2)
        // XCTest's part ended without test3's verdict, as its output says, read after the
        // event stream's first start: that test is Swift Testing's, and did not crash.
        progress.read("◇ Test run started.", at: 2)
        XCTAssertEqual(progress.running, ["M.Early/first()": 2])
        progress.readEvent(event("testEnded", "Early/first()/S.swift:2:6", "pass"), at: 2)
        progress.readEvent(
            """
            {"kind":"test","payload":{"displayName":"adds","id":"M.Math\\/add()\\/S.swift:6:6","kind":"function",\
            "name":"add()"},"version":0}
            """, at: 2)
        progress.readEvent(event("testStarted", "A"), at: 2)  // a suite: not a test
        progress.readEvent(event("testStarted", "A/check()/S.swift:3:6"), at: 2)
        progress.readEvent(event("testStarted", "B/check()/S.swift:9:6"), at: 3)
        progress.read("◇ Test check() started.", at: 3)  // the human lines are left alone
        progress.read("✔ Test check() passed after 0.001 seconds.", at: 3)
        progress.readEvent(event("testEnded", "A/check()/S.swift:3:6", "pass"), at: 4)
        XCTAssertEqual(progress.running, ["M.B/check()": 3])
        progress.readEvent(event("testStarted", "Math/add()/S.swift:6:6"), at: 4)
        progress.readEvent(event("testEnded", "Math/add()/S.swift:6:6", "fail"), at: 4)
        progress.readEvent(event("testSkipped", "Math/skipped()/S.swift:8:6", "skip"), at: 4)
        progress.readEvent(event("testStarted", "Math/known()/S.swift:9:6"), at: 4)
        progress.readEvent(event("testEnded", "Math/known()/S.swift:9:6", "passWithKnownIssue"), at: 5)
        progress.readEvent(event("testStarted", "Math/cancels()/S.swift:10:6"), at: 5)
        progress.readEvent(event("testCancelled", "Math/cancels()/S.swift:10:6"), at: 5)
        progress.readEvent(event("testEnded", "Math/cancels()/S.swift:10:6", "skip"), at: 5)  // `Test.cancel()`
        progress.readEvent(event("testEnded", "A", "fail"), at: 5)
        progress.readEvent("not json", at: 5)
        XCTAssertEqual(
            progress.ended.map { "\($0.key) \($0.ending)" },
            [
                "OrderTests.test3 crashed", "M.Early/first() passed", "M.A/check() passed", "M.Math/add() failed", "M.Math/skipped() skipped",
                "M.Math/known() passed", "M.Math/cancels() skipped",
            ])
        XCTAssertEqual(progress.running, ["M.B/check()": 3])
        XCTAssertEqual(progress.displayNames, ["M.Math/add()": "\"adds\""])

        // The list keys Swift Testing's ids as the progress does; XCTest's as their lines.
        var listing = TestList.Listing(
            ids: ["M.OrderTests/test1", "M.A/check()", "M.B/check()"], displayNames: ["M.A/check()": "\"a\""])
        listing.swiftTestingByID = true
        XCTAssertEqual(["M.OrderTests/test1", "M.A/check()", "M.B/check()"].map(listing.key(of:)),
            ["OrderTests.test1", "M.A/check()", "M.B/check()"])
        // Its stack is found by the function the id names, not by another suite's of that name.
        let stuck = StackGroup.fold([
            ThreadStack(
                thread: "worker", tid: 7, state: "S",
                frames: ["M.B.check() -> () (S.swift:9)", "closure in M.A.helper() -> () (S.swift:4)"])
        ])[0]
        XCTAssertTrue(WatchReport.mentions(stuck, ["M.B/check()"]))
        XCTAssertFalse(WatchReport.mentions(stuck, ["M.A/check()"]))
    }

    /// A `swift test --help-hidden` the tool crashed is asked again (SwiftPM 6.3.1 sometimes dies
    /// by SIGSEGV in libdispatch, swiftlang/swift issue 87033); one that crashes every time
    /// leaves the run to its printed lines.
    func testACrashedHelpIsAskedAgain() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lab-help-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func swift(_ name: String, crashes: String) throws -> SwiftTestInvocation {
            let path = folder.appendingPathComponent(name).appendingPathComponent("swift").path
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let script = """
                #!/bin/sh
                \(crashes) && kill -SEGV $$
                echo '  --event-stream-output-path <p>'; echo '  --event-stream-version <v>'
                """
            try script.write(toFile: path, atomically: true, encoding: .utf8)
            XCTAssertEqual(chmod(path, 0o755), 0)
            return try XCTUnwrap(SwiftTestInvocation([path, "test"]))
        }
        let once = try swift("once", crashes: "[ ! -e \"$0.crashed\" ] && : > \"$0.crashed\"")
        XCTAssertEqual(
            WatchCommand.eventStream(for: once, help: WatchCommand.help(for: once))?.options.first,
            "--event-stream-output-path")
        let always = try swift("always", crashes: "true")
        XCTAssertNil(WatchCommand.eventStream(for: always, help: WatchCommand.help(for: always)))
    }

    /// Read from the lines they print, two Swift Testing tests of one function name end as one:
    /// the summary names them, and only when they ran, were asked for and are not told apart.
    func testNamesakesReadAsOneAreNamed() {
        var list = TestList.Listing(ids: ["M.S/last()", "M.S/Inner/last()", "M.S/first()", "M.C/testA"])
        let all = WatchCommand.namesakes(in: list, selectedBy: { _ in true }, ended: { _ in true })
        XCTAssertEqual(all.map(\.key), ["last()"])
        XCTAssertEqual(all.first?.ids, ["M.S/last()", "M.S/Inner/last()"])
        XCTAssertTrue(WatchCommand.namesakes(in: list, selectedBy: { _ in true }, ended: { _ in false }).isEmpty)
        XCTAssertTrue(
            WatchCommand.namesakes(in: list, selectedBy: { !$0.contains("Inner") }, ended: { _ in true }).isEmpty)
        list.swiftTestingByID = true
        XCTAssertTrue(WatchCommand.namesakes(in: list, selectedBy: { _ in true }, ended: { _ in true }).isEmpty)
    }

    /// The event stream is asked for by the names `swift test --help-hidden` shows, unless the
    /// user asked for one of their own.
    func testTheEventStreamIsAskedForByTheNamesSwiftPMShows() throws {
        XCTAssertEqual(
            SwiftTestInvocation.eventStreamOptions(
                help: "  --event-stream-output-path <p>\n  --event-stream-version <v>\n", path: "/t/e.jsonl"),
            ["--event-stream-output-path", "/t/e.jsonl", "--event-stream-version", "0"])
        XCTAssertEqual(
            SwiftTestInvocation.eventStreamOptions(
                help: "--experimental-event-stream-output <p>\n--experimental-event-stream-version <v>", path: "e"),
            ["--experimental-event-stream-output", "e", "--experimental-event-stream-version", "0"])
        XCTAssertNil(SwiftTestInvocation.eventStreamOptions(help: "--filter <filter>\n--parallel", path: "e"))
        let plain = try XCTUnwrap(SwiftTestInvocation(["swift", "test", "--parallel"]))
        XCTAssertFalse(plain.givesEventStream)
        XCTAssertEqual(plain.helpCommand, ["swift", "test", "--help-hidden"])
        let own = try XCTUnwrap(
            SwiftTestInvocation(["swift", "test", "--event-stream-output-path", "mine.jsonl", "--event-stream-version", "0"]))
        XCTAssertTrue(own.givesEventStream)
        XCTAssertTrue(try XCTUnwrap(SwiftTestInvocation(["swift", "test", "--experimental-event-stream-output=x"]))
            .givesEventStream)
        // Its value is the option's, not a word of the command: the list leaves both out.
        XCTAssertEqual(own.listCommand, ["swift", "test", "list", "--skip-build"])
    }

    func testOnlyCandidateLinesAreDecodedAcrossChunks() {
        var splitter = LineSplitter()
        var seen: [String] = []
        for chunk in [
            "compiling...\nTest Ca", "se 'A.b' started at now\nplain line\n", "[1/2] Testing M.A/b\n◇ Te",
            "st x() started.\nno newline",
        ] {
            Array(chunk.utf8).withUnsafeBytes { splitter.split($0) { seen.append(String($0)) } }
        }
        XCTAssertEqual(seen, ["Test Case 'A.b' started at now", "[1/2] Testing M.A/b", "◇ Test x() started."])
        // A verdict glued after more than `limit` bytes of unended output (a progress bar's `\r`
        // lines), in chunks: read from the line's last bytes, not lost with its middle.
        var long = LineSplitter()
        var glued: [String] = []
        let bar = String(repeating: "\r[=====>    ] 50%", count: 600)
        let verdict = "Test Case 'A.c' passed (0.1 seconds)\n"
        for chunk in ["\n" + String(bar.prefix(5000)), String(bar.dropFirst(5000)) + verdict] {
            Array(chunk.utf8).withUnsafeBytes { long.split($0) { glued.append(String($0)) } }
        }
        XCTAssertEqual(glued, ["Test Case 'A.c' passed (0.1 seconds)"])
        // A long line that is a test line from its start is handed over from there, cut at `limit`.
        var head: [String] = []
        let message = "Test Case 'A.d' started at now " + String(repeating: "x", count: 5000) + "\n"
        Array(message.utf8).withUnsafeBytes { long.split($0) { head.append(String($0)) } }
        XCTAssertEqual(head.map(\.utf8.count), [LineSplitter.limit])
    }

    /// Seen under load on the fixture: test7's crash report and the verdicts buffered before it
    /// share one pipe, and test5's verdict came glued to the backtracer's first line. Read from
    /// the line's start only, test5 stayed "running" and was reported crashed with test7.
    func testAVerdictGluedAfterACrashReportIsRead() {
        var splitter = LineSplitter()
        var progress = TestProgress()
        let output = """
            Test Case 'OrderTests.test5' started at 2026-11-27 08:54:29.063
            WatchFixtureKit/Misbehaviour.swift:47: Fatal error: the fixture crashes on purpose
            *** Signal 4: Backtracing from 0x7fa4a60f9361...Test Case 'OrderTests.test5' passed (0.001 seconds)
            Test Case 'OrderTests.test7' started at 2026-11-27 08:54:29.064
            *** Program crashed: Illegal instruction at 0x00007fa4a60f9361 ***
            Test Case 'no verdict' in a plain sentence
            ◇ Test run started.

            """
        Array(output.utf8).withUnsafeBytes { splitter.split($0) { progress.read($0, at: 1) } }
        XCTAssertEqual(progress.ending(of: "OrderTests.test5"), .passed)
        XCTAssertEqual(progress.ending(of: "OrderTests.test7"), .crashed)
        XCTAssertEqual(progress.ended.count, 2, "\(progress.ended)")
    }

    /// Swift Testing runs tests side by side: when one traps, the process ends the others too, and
    /// SwiftPM's line names none. Every test running was called crashed (3 where one trapped).
    /// The crashed thread of Swift's crash report runs the test that trapped; the others run again.
    /// Lines as Swift 6.3.1 wrote them on Linux (debug, then release, where the test is inlined
    /// and `@Test`'s function is named by its mangled part alone), cut to what is read.
    func testACrashIsPinnedOnTheTestItsCrashedThreadRuns() {
        let start = #"{"kind":"event","payload":{"kind":"testStarted","testID":"M.%@/S.swift:5:6"},"version":0}"#
        let tests = ["BystanderSuite/alsoWaits()", "BystanderSuite/waitsAndPasses()", "TrapSuite/trapsSoon()"]
        let debugFrames = """
              1 [ra]             0x00005564cd12a655 static Crasher.trap(_:) + 132 in P.xctest at /w/Kit/M.swift:47:9
              2 [ra]             0x00005564cd1572c1 TrapSuite.trapsSoon() + 64 in P.xctest at /w/Tests/T.swift:11:74
            """
        let releaseFrames = """
              3 [ra] [inlined]          0x0000557464e8273c static TrapSuite.$s1M9TrapSuiteV9trapsSoon4TestfMp_16a4ffaf2\
            06b110118fMu_@Sendable () in P.xctest at /tmp/swift-generated-sources/@__swiftmacro_1M9TrapSuiteV9trapsSoon4\
            TestfMp_.swift:7
            """
        func run(_ frames: String, crashed: String = "crashed:", tests: [String] = tests) -> TestProgress {
            var progress = TestProgress(swiftTestingFromEvents: true)
            for id in tests { progress.readEvent(Substring(start.replacingOccurrences(of: "%@", with: id)), at: 1) }
            let output = """
                ◇ Test trapsSoon() started.
                Thread 2 "oot.default-qos":

                  1 [ra]             0x00005564cd156f16 BystanderSuite.alsoWaits() + 133 in P.xctest at /w/T.swift:7:37
                ...

                Thread 4 "oot.default-qos" \(crashed)

                  0                  0x00007f22d5cf9361 _assertionFailure(_:_:file:line:flags:) + 225 in libswiftCore.so
                \(frames)
                Registers:

                 r8 0x0000000000000007  7
                error: Process '/w/.build/debug/PPackageTests.xctest --skip-build --testing-library swift-testing' \
                exited with unexpected signal code 4

                """
            var splitter = LineSplitter()
            Array(output.utf8).withUnsafeBytes { splitter.split($0) { progress.read($0, at: 2) } }
            XCTAssertTrue(progress.running.isEmpty, "the process died: \(progress.running)")
            progress.settleCrash()
            return progress
        }
        let places = [
            "Crasher.trap (M.swift:47) ← TrapSuite.trapsSoon (T.swift:11)", "@Test expansion of TrapSuite.trapsSoon",
        ]
        for (frames, place) in zip([debugFrames, releaseFrames], places) {
            var progress = run(frames)
            XCTAssertEqual(progress.ended.map { "\($0.key) \($0.ending)" }, ["M.TrapSuite/trapsSoon() crashed"])
            XCTAssertEqual(
                progress.crashPlaces["M.TrapSuite/trapsSoon()"],
                "1 thread (crashed: oot.default-qos): in _assertionFailure ← \(place)")
            XCTAssertNil(progress.ending(of: "M.BystanderSuite/alsoWaits()"), "it runs again")
            let beside = progress.takeBesideCrash()
            XCTAssertEqual(beside.map(\.crashed), [["M.TrapSuite/trapsSoon()"]])
            XCTAssertEqual(
                beside.map(\.beside), [["M.BystanderSuite/alsoWaits()", "M.BystanderSuite/waitsAndPasses()"]])
            XCTAssertTrue(progress.takeBesideCrash().isEmpty)
        }
        // The test the thread runs outermost crashed: one whose function it called in turn did not.
        var called = run(
            debugFrames.replacingOccurrences(
                of: "  2 [ra]", with: "  2 [ra] 0x1 BystanderSuite.alsoWaits() + 9 in P.xctest\n  3 [ra]"))
        XCTAssertEqual(called.ended.map { "\($0.key) \($0.ending)" }, ["M.TrapSuite/trapsSoon() crashed"])
        XCTAssertEqual(called.takeBesideCrash().map(\.beside).first?.count, 2, "alsoWaits() runs again")
        // Two tests that share a base name in one suite run at the same frame: neither is pinned.
        let overloads = ["BystanderSuite/alsoWaits()", "TrapSuite/trapsSoon()", "TrapSuite/trapsSoon(x:)"]
        let shared = run(debugFrames, tests: overloads)
        XCTAssertTrue(shared.ended.isEmpty, "\(shared.ended)")
        XCTAssertEqual(shared.unpinnedCrashes, [overloads.map { "M." + $0 }])
        // No crashed thread runs any of them (a helper's thread, or no report): none ended, and
        // each runs alone; one that never could is crashed, as one of three.
        var unpinned = run(debugFrames, crashed: ":")
        XCTAssertTrue(unpinned.ended.isEmpty, "\(unpinned.ended)")
        XCTAssertEqual(unpinned.unpinnedCrashes, [tests.map { "M." + $0 }])
        XCTAssertEqual(unpinned.nextAlone(), "M.BystanderSuite/alsoWaits()")
        unpinned.readEvent(Substring(start.replacingOccurrences(of: "%@", with: tests[2])), at: 3)
        unpinned.read(
            "error: Process '/w/P.xctest --testing-library swift-testing' exited with unexpected signal code 4", at: 4)
        unpinned.settleCrash()
        XCTAssertEqual(unpinned.nextAlone(), "M.BystanderSuite/waitsAndPasses()", "trapsSoon() ended, alone")
        XCTAssertEqual(unpinned.ending(of: "M.TrapSuite/trapsSoon()"), .crashed)
        unpinned.finishUnpinned()
        XCTAssertNil(unpinned.nextAlone())
        XCTAssertEqual(
            unpinned.sharedCrashes, ["M.BystanderSuite/alsoWaits()": 3, "M.BystanderSuite/waitsAndPasses()": 3])
        // One test alone in its process crashed, report or not.
        var alone = TestProgress()
        alone.read("Test Case 'OrderTests.test7' started at 2026-11-27 08:54:29.064", at: 1)
        alone.read("error: Process '/b/P.xctest' exited with unexpected signal code 4", at: 2)
        alone.settleCrash()
        XCTAssertEqual(alone.ending(of: "OrderTests.test7"), .crashed)
        XCTAssertTrue(alone.sharedCrashes.isEmpty)

        // A frame runs a test by the test's own function, as a word, or by `@Test`'s for it.
        XCTAssertTrue(CrashedTest.frame("0x1 Outer.Inner.f(x:) + 5 in P", runs: "M.Outer/Inner/f(x:)"))
        XCTAssertTrue(CrashedTest.frame("0x1 OrderTests.test7() + 5 in P", runs: "OrderTests.test7"))
        XCTAssertTrue(CrashedTest.frame("0x1 S.check() + 5 in P", runs: "check()"))
        XCTAssertFalse(CrashedTest.frame("0x1 MyTrapSuite.trapsSoon() + 5 in P", runs: "M.TrapSuite/trapsSoon()"))
        XCTAssertFalse(
            CrashedTest.frame(
                "0x1 static TrapSuite.$s1M9TrapSuiteV9trapsSoon4TestfMp_16a4ffaf206b110118fMu_@Sendable () in P",
                runs: "M.OtherSuite/trapsSoon()"))
        XCTAssertFalse(CrashedTest.frame("0x1 Suite.test() + 5 in P", runs: "\"a display name\""))
        // Once lab watch has ended the tree for a hang, a process that dies dies of its doing: a
        // test that started meanwhile did not crash, it runs again.
        var ended = TestProgress()
        ended.read("Test Case 'OrderTests.test2' started at 2026-11-27 21:49:43.496", at: 1)
        ended.treeEnded()
        ended.read("Test Case 'OrderTests.test3' started at 2026-11-27 21:49:43.596", at: 2)
        ended.read("error: Process '/b/P.xctest' exited with unexpected signal code 9", at: 3)
        ended.read("Test Case 'OrderTests.test4' started at 2026-11-27 21:49:43.696", at: 3)
        ended.read("◇ Test run started.", at: 3)
        ended.read("◇ Test crashesToo() started.", at: 3)
        ended.settleCrash()
        XCTAssertTrue(ended.ended.isEmpty && ended.running.isEmpty, "\(ended.ended) \(ended.running)")
        // The next round's crashes count again.
        ended.read("Test Case 'OrderTests.test7' started at 2026-11-27 21:49:44.000", at: 4)
        ended.read("error: Process '/b/P.xctest' exited with unexpected signal code 4", at: 5)
        XCTAssertEqual(ended.ending(of: "OrderTests.test7"), .crashed)
        // The backtracer is asked for: on macOS it runs by default only for a terminal.
        XCTAssertEqual(WatchCommand.backtraceSetting(nil), "enable=yes")
        XCTAssertEqual(WatchCommand.backtraceSetting("threads=all"), "threads=all,enable=yes")
        XCTAssertEqual(WatchCommand.backtraceSetting("enable=no,threads=all"), "enable=no,threads=all")
    }
}

/// `lab watch -- swift test` on the fixture package, whose tests deadlock, spin and crash
/// between tests that pass. The fixture is built once for the class, under `.build/`, and
/// copied for each whole run but the first, which run side by side (`WholeRun`). They start in
/// the background once the fixture is built; the tests that read them are named to run last
/// (XCTest runs a class's tests by name), so the others run while they wait.
final class WatchFixtureTests: XCTestCase {
    /// The fixture package and its scratch path (one for each build system, `buildSystem`).
    static let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("WatchFixture").path
    static let scratch = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/watch-fixture").path
        + (buildSystem.isEmpty ? "" : "-swiftbuild")

    /// Whether the fixture was built (by the first test that needs it), and why not if it failed.
    nonisolated(unsafe) private static var buildTried = false
    nonisolated(unsafe) private static var buildFailure: String?

    private func fixture() throws -> (lab: String, swift: String) {
        if let reason = StackCapture.unavailableReason { throw XCTSkip(reason) }
        if let reason = ProcessTable.unavailableReason { throw XCTSkip(reason) }
        let lab = try BuiltProducts.executable("lab")
        let swift = try XCTUnwrap(WatchSpawn.resolve("swift"), "no swift on PATH")
        if !Self.buildTried {
            Self.buildTried = true
            let run = try Self.buildFixture(swift: swift)
            if run.outcome != .completed {
                Self.buildFailure = "the fixture did not build: \(run.evidence)\n\(run.stdout.suffix(2000))"
                    + "\n\(run.stderr.prefix(2000))"
            } else if let failure = (WholeRun.allCases.dropFirst().map(\.scratch) + [Self.endedScratch])
                .lazy.compactMap(Self.copy(to:)).first
            {
                Self.buildFailure = failure
            } else {
                Self.startWholeRuns(lab: lab)
            }
        }
        if let failure = Self.buildFailure { XCTFail(failure); throw XCTSkip(failure) }
        return (lab, swift)
    }

    /// Builds the fixture, again when the build tool itself crashed: SwiftPM 6.3.1 with
    /// `--build-system swiftbuild` sometimes dies by SIGSEGV in libdispatch while it plans
    /// (`_dispatch_event_loop_drain`, swiftlang/swift issue 87033, open), here 1 fresh build
    /// in 12, and once in this test on CI. That crash says nothing of `lab watch`, so a second
    /// and third try build; a build that fails otherwise, or crashes three times, fails the test.
    private static func buildFixture(swift: String) throws -> ChildRun {
        let spec = ChildSpec(
            executable: swift,
            arguments: ["build", "--build-tests", "--package-path", package, "--scratch-path", scratch]
                + buildSystem + sharedModuleCache,
            budget: 900)
        return try WatchSpawn.runAgainIfCrashed(spec) {
            print("the fixture's build crashed (\($0.evidence)); building again")
        }
    }

    /// The lab's own build's module cache, for the fixture's build: the system modules it
    /// imports (Foundation, Dispatch, XCTest, Testing, Glibc) were built there already by the
    /// build of these tests, and building them again in a fresh scratch path took more than
    /// half of the fixture's build (12.4 and 15.6 s with its own cache, 5.6 and 6.6 s sharing
    /// it). The compiler keys each entry by its flags and locks it while writing, so the cache
    /// takes a second user safely; without the lab's build folder, the fixture keeps its own.
    private static var sharedModuleCache: [String] {
        let cache = BuiltProducts.directory.appendingPathComponent("ModuleCache").path
        guard FileManager.default.fileExists(atPath: cache) else { return [] }
        return ["-Xswiftc", "-module-cache-path", "-Xswiftc", cache]
    }

    /// A copy of the built fixture for each whole run but the first, as they run side by side:
    /// on one scratch path a second `swift test` waits for the first ("Another instance of
    /// SwiftPM is already running"), and with one each the runs' test processes are told apart
    /// by their path.

    /// A copy for the tests that end `lab watch` while a test hangs, which run while the whole
    /// runs go on in the background: their `swift test` neither waits for the whole run's lock
    /// nor counts its test processes as left running (65 MB, copied in a tenth of a second).
    static let endedScratch = scratch + "-ended"

    /// Copies the built fixture to `destination`: `nil` when it did, else why not.
    private static func copy(to destination: String) -> String? {
        try? FileManager.default.removeItem(atPath: destination)
        guard
            let copy = try? ChildProcess.run(
                ChildSpec(executable: "/bin/cp", arguments: ["-a", scratch, destination], budget: 60)),
            copy.exitCode == 0
        else { return "the built fixture could not be copied to \(destination)" }
        // The copy's lock file names the process that built the original.
        try? FileManager.default.removeItem(atPath: destination + "/.lock")
        return nil
    }

    /// `swift test` of the fixture, built already in `scratch` (the build or one of its copies).
    private static func swiftTest(scratch: String) -> [String] {
        ["swift", "test", "--skip-build", "--package-path", Self.package, "--scratch-path", scratch] + buildSystem
    }

    /// The fixture is built by the build system that built these tests: SwiftPM's native one
    /// (`WatchFixturePackageTests.xctest`), or swiftbuild (`WatchFixtureTests-test-runner`), whose
    /// runner this process then is (`swift test --build-system swiftbuild`, as CI runs it).
    static let buildSystem =
        ChildProcess.currentExecutablePath().hasSuffix("-test-runner") ? ["--build-system", "swiftbuild"] : []

    /// Whether `commandLine` runs the fixture's test binary, by either build system's name.
    static func runsFixtureTests(_ commandLine: String) -> Bool {
        commandLine.contains("WatchFixturePackageTests.xctest") || commandLine.contains("WatchFixtureTests-test-runner")
    }

    /// The test processes of this checkout's fixture (built in `scratch`) still alive, zombies
    /// aside.
    private static func fixtureProcesses(scratch: String = WatchFixtureTests.scratch) -> [ProcessTable.Entry] {
        let binary = scratch + "/"
        return ProcessTable.all().filter {
            $0.commandLine.contains(binary) && runsFixtureTests($0.commandLine) && $0.state != "Z"
        }
    }

    /// Waits for the whole runs the build started, so that none outlives the class (when only
    /// tests that end `lab watch` were selected).
    override class func tearDown() {
        _ = wholeRuns.withLock { $0 }?.results
        super.tearDown()
    }

    /// The whole runs of the fixture under `lab watch`: its tests in turn, and `--parallel`; and
    /// two of a few tests, with `WATCH_FIXTURE_HOLD` holding a class or a suite where no test
    /// runs, which only the quiet timeout finds.
    enum WholeRun: CaseIterable {
        case inTurn, parallel, heldSetUp, heldTearDown

        /// `lab watch`'s arguments before the command.
        var watchArguments: [String] {
            switch self {
            // 2 s of no output and no CPU: a stalled process is waiting for a CPU, and a loaded
            // machine's stalls are under 0.5 s.
            case .heldSetUp, .heldTearDown: ["watch", "--quiet-timeout", "2s", "--test-timeout", "2s", "--"]
            // 2 s: four times the longest stall a loaded machine gives the fixture's passing tests
            // (they take milliseconds), and each of the three hangs costs the run its length. In
            // `--parallel` a late test whose process shows no frame of the test yet (starting
            // beside a spinning one) gets a second timeout, and one whose process has ended is
            // not hung: at 100 ms under `stress --cpu 4`, 18 runs of 18 named exactly the three.
            case .inTurn, .parallel: ["watch", "--test-timeout", "2s", "--"]
            }
        }

        var swiftTestArguments: [String] {
            switch self {
            case .inTurn: ["--xunit-output", xunitPath]
            case .parallel: ["--parallel", "--xunit-output=" + xunitPath]
            // Its own event stream: `lab watch` reads Swift Testing's lines, which do not say which
            // suite a hold is in.
            case .heldSetUp:
                ["HeldClassTests", "OrderTests/test1PassesFirst", "OrderTests/test8PassesLast", "HeldSuite"]
                    .flatMap { ["--filter", $0] }
                    + ["--event-stream-output-path", xunitPath + ".jsonl", "--event-stream-version", "0"]
            case .heldTearDown:
                ["HeldClassTests", "OrderTests/test8PassesLast", "spinsAtTopLevel", "HeldSuite"]
                    .flatMap { ["--filter", $0] }
            }
        }

        /// Where the run's `--xunit-output` goes (XCTest's; Swift Testing's beside it).
        var xunitPath: String {
            FileManager.default.temporaryDirectory.appendingPathComponent("lab-watch-\(getpid())-\(self).xml").path
        }

        /// `WATCH_FIXTURE_HOLD`: where the fixture holds.
        var environment: [String: String] {
            switch self {
            case .inTurn, .parallel: [:]
            case .heldSetUp: ["WATCH_FIXTURE_HOLD": "setUp,suite"]
            case .heldTearDown: ["WATCH_FIXTURE_HOLD": "tearDown,spin,suite"]
            }
        }

        /// Where its fixture was built: each run but the first uses a copy of its own.
        var scratch: String { self == .inTurn ? WatchFixtureTests.scratch : WatchFixtureTests.scratch + "-\(self)" }
    }

    /// A whole run: how `lab watch` ended, and its test processes still alive the moment it
    /// ended (by the path of the fixture it ran: the other runs' have others).
    struct WatchedRun: Sendable {
        var run: ChildRun
        var leftRunning: [String]
    }

    /// The whole runs, started together in the background the moment the fixture is built:
    /// each spends most of its time waiting for its hung tests to reach their timeout, so
    /// together they take about as long as the longest one instead of all in turn, and the
    /// class's other tests (which end `lab watch` on a copy of their own) run meanwhile.
    private static let wholeRuns = Mutex<SideBySide<WholeRun, WatchedRun>?>(nil)

    private func wholeRun(_ which: WholeRun) throws -> WatchedRun {
        _ = try fixture()
        return try XCTUnwrap(Self.wholeRuns.withLock { $0 }, "the whole runs did not start").value(which)
    }

    /// Starts the whole runs, each on a thread of its own.
    private static func startWholeRuns(lab: String) {
        let runs = SideBySide(WholeRun.allCases) { which in
            let arguments = which.watchArguments + swiftTest(scratch: which.scratch) + which.swiftTestArguments
            let run = try ChildProcess.run(
                ChildSpec(executable: lab, arguments: arguments, environment: which.environment, budget: 300))
            return WatchedRun(run: run, leftRunning: fixtureProcesses(scratch: which.scratch).map(\.commandLine))
        }
        wholeRuns.withLock { $0 = runs }
    }

    func testEveryTestIsReportedOnceAndTheHungOnesSayWhere() throws {
        let whole = try wholeRun(.inTurn)
        let run = whole.run
        let output = run.stdout + run.stderr
        XCTAssertEqual(run.exitCode, 1, "tests failed and hung: \(run.evidence)\n\(run.stderr.suffix(3000))")
        // Each passing test passed once, the failing one failed once, whatever run it ran in.
        for name in [
            "OrderTests.test1PassesFirst", "OrderTests.test3PassesAfterDeadlock", "OrderTests.test5PassesAfterSpin",
            "OrderTests.test8PassesLast",
        ] {
            XCTAssertEqual(output.components(separatedBy: "Test Case '\(name)' passed").count - 1, 1, name)
        }
        XCTAssertEqual(
            output.components(separatedBy: "Test Case 'OrderTests.test6FailsAnAssertion' failed").count - 1, 1)
        XCTAssertFalse(run.stderr.contains("with --parallel"), "every pass was read from its own output")
        // `lastPasses()`: SerialSuite's and its NamesakeSuite's, each once.
        for (name, times) in [("\"passes first\"", 1), ("lastPasses()", 2)] {
            XCTAssertEqual(output.components(separatedBy: "✔ Test \(name) passed").count - 1, times, name)
        }
        // The hung tests ran once each, and the last lines say where each was stuck.
        for name in ["OrderTests.test2Deadlocks", "OrderTests.test4Spins"] {
            XCTAssertEqual(output.components(separatedBy: "Test Case '\(name)' started").count - 1, 1, name)
        }
        let lines = run.stderr.split(separator: "\n").map(String.init)
        let summary = try XCTUnwrap(lines.last { $0.hasPrefix("lab watch: ") && $0.contains(" tests in ") }, run.stderr)
        XCTAssertTrue(summary.contains("17 tests in"), summary)
        let hung = lines.filter { $0.hasPrefix("lab watch: hung: ") }
        XCTAssertTrue(
            summary.contains("11 passed, 1 failed, 0 skipped, 2 crashed, 3 hung"),
            ([summary] + hung).joined(separator: "\n"))
        XCTAssertEqual(hung.count, 3, run.stderr)
        XCTAssertEqual(Array(lines.suffix(3)), hung, "the hung tests are the last lines")
        XCTAssertTrue(
            hung.contains { $0.contains("OrderTests/test2Deadlocks") && $0.contains("Ledger.transferBothWays") },
            hung.joined(separator: "\n"))
        XCTAssertTrue(
            hung.contains { $0.contains("OrderTests/test4Spins") && $0.contains("Spinner.spinForever") },
            hung.joined(separator: "\n"))
        // Printed by its display name, found in the stacks by its function: its own thread. The
        // code `@Test` wrote around it reads as such, not as the mangled names the runtime left.
        XCTAssertTrue(
            hung.contains {
                $0.contains("SerialSuite/deadlocksToo() \"deadlocks too\"") && $0.contains("Ledger.transferBothWays")
                    && $0.contains("← SerialSuite.deadlocksToo ← @Test expansion of SerialSuite.deadlocksToo")
            }, hung.joined(separator: "\n"))
        XCTAssertFalse(hung.contains { $0.contains("$s") }, hung.joined(separator: "\n"))
        // A crashed test, with where it crashed: its crash report's crashed thread.
        for test in ["OrderTests/test7Crashes", "SerialSuite/crashesToo()"] {
            XCTAssertTrue(
                lines.contains {
                    $0.hasPrefix("lab watch: crashed: WatchFixtureTests.\(test): 1 thread (crashed")
                        && $0.contains("Crasher.trap (Misbehaviour.swift:")
                }, run.stderr)
        }
        // Swift Testing's crash ends its process; the test after it ran in the next round.
        // The deadlocked test's own stack comes whole, with file and line.
        XCTAssertTrue(
            run.stderr.contains("WatchFixtureKit.Ledger.transferBothWays() -> () (Misbehaviour.swift:"), run.stderr)
        XCTAssertEqual(whole.leftRunning, [], "left running")
        print("lab watch on the fixture: \(Format.seconds(run.wall))")
        // Swift Testing's `--xunit-output` file holds every one of its seven tests, though the rounds
        // that ran most of them were ended (a hang, a crash) before SwiftPM could write it; a
        // serial run gets no XCTest file from SwiftPM, nor from `lab watch`.
        let path = WholeRun.inTurn.xunitPath
        let cases = try XUnitRounds.cases(in: Self.read(XUnitRounds.swiftTestingPath(path)))
        XCTAssertEqual(
            Set(cases.map { "\($0.classname)/\($0.name)" }),
            [
                "WatchFixtureTests.SerialSuite/firstPasses()", "WatchFixtureTests.SerialSuite/deadlocksToo()",
                "WatchFixtureTests.SerialSuite/lastPasses()", "WatchFixtureTests.SerialSuite/crashesToo()",
                "WatchFixtureTests.SerialSuite.NamesakeSuite/lastPasses()", "WatchFixtureTests.HeldSuite/runsUnlessHeld()",
                "WatchFixtureTests/spinsAtTopLevel()",
            ])
        XCTAssertTrue(
            cases.contains { $0.name == "deadlocksToo()" && $0.xml.contains("<failure message=\"hung after ") },
            cases.map(\.xml).joined(separator: "\n"))
        XCTAssertTrue(
            cases.contains { $0.name == "crashesToo()" && $0.xml.contains("Crasher.trap (Misbehaviour.swift:") },
            cases.map(\.xml).joined(separator: "\n"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "SwiftPM writes XCTest's only with --parallel")
        try? FileManager.default.removeItem(atPath: XUnitRounds.swiftTestingPath(path))
    }

    /// A file's text, or a failure that names it.
    private static func read(_ path: String) throws -> String {
        do { return try String(contentsOfFile: path, encoding: .utf8) } catch {
            XCTFail("\(path): \(error)")
            throw error
        }
    }

    /// `--parallel`: the running tests are read from the test processes; only the hung tests'
    /// processes are ended, so every other XCTest test's process runs once, beside them.
    func testEveryTestOfAParallelRunGetsOneVerdict() throws {
        let whole = try wholeRun(.parallel)
        let run = whole.run
        XCTAssertEqual(run.exitCode, 1, run.stderr.suffix(3000).description)
        let lines = run.stderr.split(separator: "\n").map(String.init)
        let summary = try XCTUnwrap(lines.last { $0.hasPrefix("lab watch: ") && $0.contains(" tests in ") }, run.stderr)
        XCTAssertTrue(summary.contains("17 tests in"), summary)
        let hung = lines.filter { $0.hasPrefix("lab watch: hung: ") }
        XCTAssertTrue(
            summary.contains("11 passed, 1 failed, 0 skipped, 2 crashed, 3 hung"),
            ([summary] + hung).joined(separator: "\n"))
        // Without -v SwiftPM printed nothing of the XCTest tests that passed (a test that calls
        // `exit(0)` would pass too): the summary says what those four passes rest on.
        XCTAssertTrue(
            lines.contains {
                $0.hasPrefix("lab watch: with --parallel, SwiftPM printed no output of the 6 XCTest tests that passed")
            }, run.stderr.suffix(3000).description)
        XCTAssertTrue(
            hung.contains { $0.contains("OrderTests/test2Deadlocks") && $0.contains("Ledger.transferBothWays") },
            run.stderr)
        XCTAssertTrue(
            hung.contains { $0.contains("OrderTests/test4Spins") && $0.contains("Spinner.spinForever") }, run.stderr)
        XCTAssertTrue(
            hung.contains {
                $0.contains("SerialSuite/deadlocksToo() \"deadlocks too\"") && $0.contains("SerialSuite.deadlocksToo")
            }, run.stderr)
        XCTAssertTrue(
            lines.contains {
                $0.hasPrefix("lab watch: crashed: WatchFixtureTests.SerialSuite/crashesToo(): 1 thread (crashed")
            }, run.stderr)
        XCTAssertEqual(
            run.stdout.components(separatedBy: "Test Case 'OrderTests.test6FailsAnAssertion' failed").count - 1, 1)
        // A Swift Testing test with a display name is printed by it, and its id is listed without
        // it: it ran once, not again in the run after the deadlock's; each suite's `lastPasses()`
        // once too.
        for (name, times) in [("\"passes first\"", 1), ("lastPasses()", 2)] {
            XCTAssertEqual(run.stdout.components(separatedBy: "✔ Test \(name) passed").count - 1, times, name)
        }
        // SwiftPM prints `[3/8] Testing Module.Class/test` when a test's process has ended.
        for test in [
            "test1PassesFirst", "test2Deadlocks", "test3PassesAfterDeadlock", "test4Spins", "test5PassesAfterSpin",
            "test6FailsAnAssertion", "test7Crashes", "test8PassesLast",
        ] {
            let line = "] Testing WatchFixtureTests.OrderTests/\(test)\n"
            let processes = (run.stdout + run.stderr).components(separatedBy: line)
            XCTAssertEqual(processes.count - 1, 1, "\(test) ran in one process: \(run.stderr.suffix(3000))")
        }
        print("lab watch --parallel on the fixture: \(Format.seconds(run.wall))")
        XCTAssertEqual(whole.leftRunning, [], "left running")
        // `--xunit-output=P`: XCTest's file at P holds all ten XCTest tests, each as the summary
        // says (a hung test's case is `lab watch`'s, not SwiftPM's for the process it ended).
        let path = WholeRun.parallel.xunitPath
        let cases = try XUnitRounds.cases(in: Self.read(path))
        XCTAssertEqual(cases.count, 10, cases.map(\.xml).joined(separator: "\n"))
        for (name, mark) in [
            ("test2Deadlocks", "<failure message=\"hung after "), ("test4Spins", "<failure message=\"hung after "),
            ("test7Crashes", "<failure message=\"crashed: "), ("test6FailsAnAssertion", "<failure"),
        ] {
            XCTAssertTrue(
                cases.contains { $0.name == name && $0.xml.contains(mark) }, cases.map(\.xml).joined(separator: "\n"))
        }
        XCTAssertEqual(cases.filter { $0.xml.contains("<failure") }.count, 4)
        XCTAssertEqual(try XUnitRounds.cases(in: Self.read(XUnitRounds.swiftTestingPath(path))).count, 7)
        for file in [path, XUnitRounds.swiftTestingPath(path)] { try? FileManager.default.removeItem(atPath: file) }
    }

    /// A Swift Testing test printed by its display name alone (the command asks for an event
    /// stream of its own, so `lab watch` reads the lines) hangs while `swift test` holds SwiftPM's
    /// lock: the list that pairs the name with its function is taken with `--ignore-lock`, where
    /// it waited for the run (which waited for the hang) until its budget.
    func testADisplayNamedHangIsNamedWhileTheRunHoldsTheLock() throws {
        let (lab, _) = try fixture()
        let stream = FileManager.default.temporaryDirectory.appendingPathComponent("lab-own-\(getpid()).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: stream) }
        let run = try ChildProcess.run(
            ChildSpec(
                executable: lab,
                arguments: ["watch", "--test-timeout", "1s", "--"] + Self.swiftTest(scratch: Self.endedScratch)
                    + [
                        "--filter", "SerialSuite/deadlocksToo", "--event-stream-output-path", stream,
                        "--event-stream-version", "0",
                    ],
                budget: 120))
        XCTAssertEqual(run.exitCode, 1, run.evidence + "\n" + run.stderr.suffix(3000))
        XCTAssertTrue(
            run.stderr.contains("lab watch: hung: WatchFixtureTests.SerialSuite/deadlocksToo() \"deadlocks too\" after"),
            String(run.stderr.suffix(3000)))
    }

    /// `kill -9` of `lab watch` while a test hangs: the keeper between it and `swift test` ends
    /// the tree, the test binary (in a process group of its own) included.
    func testAKilledWatchLeavesNoTestRunning() throws {
        try endWhileATestHangs(signal: SIGKILL, expecting: nil)
    }

    /// SIGTERM (as CI's time limit sends) ends the tree and exits 130; sent to the keeper at the
    /// same moment too (`pkill -f "lab watch"` names both), which ignores it and so is still there
    /// to hold the tree (it died of it, and the tree it held ran on, adopted by init).
    func testASIGTERMEndsTheTreeAndExits130() throws {
        try endWhileATestHangs(signal: SIGTERM, expecting: 130, keeperToo: true)
    }

    private func endWhileATestHangs(signal: Int32, expecting status: Int32?, keeperToo: Bool = false) throws {
        let (lab, _) = try fixture()
        let labPid = Atomic<Int32>(0)
        let sent = Atomic<Bool>(false)
        let keepersSignalled = Atomic<Int>(0)
        NamedThread.start("test.killer") {
            let deadline = MonotonicClock.now() + 60
            while MonotonicClock.now() < deadline {
                let pid = labPid.load(ordering: .acquiring)
                if pid != 0,
                    ProcessTree.descendants(of: pid).contains(where: {
                        Self.runsFixtureTests($0.commandLine)
                    })
                {
                    MonotonicClock.sleep(for: 0.3)  // into the test
                    let keepers = ProcessTree.descendants(of: pid).filter { $0.commandLine.contains(" watch-keeper ") }
                    sent.store(true, ordering: .releasing)
                    kill(pid, signal)
                    if keeperToo {
                        for keeper in keepers where kill(keeper.pid, signal) == 0 {
                            keepersSignalled.add(1, ordering: .relaxed)
                        }
                    }
                    return
                }
                MonotonicClock.sleep(for: 0.02)
            }
        }
        let run = try ChildProcess.run(
            ChildSpec(
                executable: lab,
                arguments: ["watch", "--test-timeout", "60s", "--"] + Self.swiftTest(scratch: Self.endedScratch)
                    + ["--filter", "OrderTests/test2Deadlocks"], budget: 90,
                onStart: { labPid.store($0, ordering: .releasing) }))
        XCTAssertTrue(sent.load(ordering: .acquiring), "the test never started: \(run.stderr)")
        if keeperToo { XCTAssertEqual(keepersSignalled.load(ordering: .relaxed), 1, "no keeper was found to signal") }
        if let status { XCTAssertEqual(run.exitCode, status, run.stderr) } else { XCTAssertEqual(run.signal, SIGKILL) }
        let ended = MonotonicClock.now()
        var left = Self.fixtureProcesses(scratch: Self.endedScratch)
        while !left.isEmpty && MonotonicClock.now() - ended < 2 {
            MonotonicClock.sleep(for: 0.02)
            left = Self.fixtureProcesses(scratch: Self.endedScratch)
        }
        XCTAssertEqual(
            left.map(\.commandLine), [], "still running 2 s after lab watch got \(ChildProcess.signalName(signal))")
        for process in left { kill(process.pid, SIGKILL) }
    }

    /// A class whose `class func setUp()` never returns: no test of it starts, so no test's
    /// timeout runs. The quiet timeout finds it; the class is named with where it was held, its
    /// tests did not run, and the tests of the classes after it run. Then a Swift Testing suite
    /// held by its trait before its test, read from Swift Testing's lines (the command asks for
    /// the event stream itself), which do not say where a hold is: any rerun could meet it again,
    /// so the run ends there (exit 124), naming the test that did not run. Before, the first hold
    /// ended the whole run (exit 124), and no test after it ran or was named.
    func testWhenAClassIsHeldInItsSetUpOnlyItsOwnTestsAreLost() throws {
        let whole = try wholeRun(.heldSetUp)
        let run = whole.run
        let lines = run.stderr.split(separator: "\n").map(String.init)
        XCTAssertEqual(run.exitCode, 124, run.evidence + "\n" + run.stderr.suffix(3000))
        XCTAssertTrue(
            lines.contains {
                $0.hasSuffix("5 tests in 2 runs of swift test: 2 passed, 0 failed, 0 skipped, 0 crashed, 0 hung, 3 not run")
            }, run.stderr.suffix(3000).description)
        let held = try XCTUnwrap(lines.last { $0.hasPrefix("lab watch: hung: XCTest class HeldClassTests") }, run.stderr)
        XCTAssertTrue(held.contains("held in its class setUp()"), held)
        XCTAssertTrue(held.contains("Ledger.transferBothWays (Misbehaviour.swift:"), held)
        XCTAssertTrue(
            held.hasSuffix(
                "2 tests of it did not run: WatchFixtureTests.HeldClassTests/testFirstOfItsClass, "
                    + "WatchFixtureTests.HeldClassTests/testSecondOfItsClass"), held)
        for name in ["OrderTests.test1PassesFirst", "OrderTests.test8PassesLast"] {
            XCTAssertEqual(run.stdout.components(separatedBy: "Test Case '\(name)' passed").count - 1, 1, name)
        }
        XCTAssertFalse(run.stdout.contains("Test Case 'HeldClassTests."), "no test of the held class started")
        XCTAssertEqual(lines.last, "lab watch: 1 listed test did not run: WatchFixtureTests.HeldSuite/runsUnlessHeld()")
        XCTAssertEqual(whole.leftRunning, [], "left running")
        try? FileManager.default.removeItem(atPath: WholeRun.heldSetUp.xunitPath + ".jsonl")
    }

    /// Held in its `class func tearDown()`, after its tests passed: the run fails, the class is
    /// named, and the tests after it run. One of them, a Swift Testing test at the module's top
    /// level, spins: it is timed and hung like any other (before, lab watch never saw it start,
    /// and the spin, which keeps a CPU busy, was never quiet either: the run did not end). The
    /// last, a Swift Testing suite held by its trait, is named from the event stream (its start
    /// with no end) like a class: its test did not run.
    func testWhenAClassIsHeldInItsTearDownTheRestStillRun() throws {
        let whole = try wholeRun(.heldTearDown)
        let run = whole.run
        let lines = run.stderr.split(separator: "\n").map(String.init)
        XCTAssertEqual(run.exitCode, 1, run.evidence + "\n" + run.stderr.suffix(3000))
        XCTAssertTrue(
            lines.contains {
                $0.hasSuffix(
                    "5 tests in 3 runs of swift test: 3 passed, 0 failed, 0 skipped, 0 crashed, 1 hung, 1 not run")
            }, run.stderr.suffix(3000).description)
        let suite = try XCTUnwrap(
            lines.last { $0.hasPrefix("lab watch: hung: Swift Testing suite WatchFixtureTests.HeldSuite, ") },
            run.stderr.suffix(3000).description)
        XCTAssertTrue(suite.contains("← HoldsItsSuite.provideScope"), suite)
        XCTAssertTrue(suite.hasSuffix("1 test of it did not run: WatchFixtureTests.HeldSuite/runsUnlessHeld()"), suite)
        XCTAssertTrue(
            lines.contains {
                $0.hasPrefix("lab watch: hung: WatchFixtureTests.spinsAtTopLevel() after ")
                    && $0.contains("Spinner.spinForever")
            }, run.stderr.suffix(3000).description)
        let held = try XCTUnwrap(lines.last { $0.hasPrefix("lab watch: hung: XCTest class HeldClassTests") }, run.stderr)
        XCTAssertTrue(held.contains("held in its class tearDown()"), held)
        XCTAssertTrue(held.hasSuffix("; every test of it had ended"), held)
        XCTAssertEqual(whole.leftRunning, [], "left running")
    }

    /// An `--xunit-output` file that cannot be created (its folder is missing): one line, and
    /// status 73 for a run whose tests passed; the tests' own status when one failed.
    func testAnXUnitFileThatCannotBeCreatedIsSaidAndExits73() throws {
        let (lab, _) = try fixture()
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("lab-missing-\(getpid())/r.xml").path
        for (filter, status) in [("OrderTests/test1PassesFirst", 73), ("OrderTests/test6FailsAnAssertion", 1)] {
            let run = try ChildProcess.run(
                ChildSpec(
                    executable: lab,
                    arguments: ["watch", "--"] + Self.swiftTest(scratch: Self.endedScratch)
                        + ["--filter", filter, "--xunit-output", missing],
                    budget: 120))
            XCTAssertEqual(run.exitCode, Int32(status), "\(filter): \(run.stderr.suffix(2000))")
            let lines = run.stderr.split(separator: "\n").filter { $0.hasPrefix("lab watch: --xunit-output: ") }
            XCTAssertEqual(lines.count, 1, run.stderr.suffix(2000).description)
            XCTAssertTrue(
                lines.first?.contains((missing as NSString).deletingLastPathComponent) == true,
                run.stderr.suffix(2000).description)
        }
    }

    /// Any other command: no output and no CPU for the quiet timeout is a hang: stacks, the tree
    /// ended, status 124.
    func testAQuietCommandIsEndedWithItsStacksAnd124() throws {
        if let reason = StackCapture.unavailableReason { throw XCTSkip(reason) }
        let lab = try BuiltProducts.executable("lab")
        let marker = "lab-watch-quiet-\(getpid())"
        let run = try ChildProcess.run(
            ChildSpec(
                executable: lab,
                arguments: [
                    "watch", "--quiet-timeout", "1s", "--", "/bin/sh", "-c",
                    "echo started; sleep 30 # \(marker)",
                ], budget: 30))
        XCTAssertEqual(run.exitCode, 124, run.stderr)
        XCTAssertEqual(run.stdout, "started\n", "the output passes through unchanged")
        XCTAssertTrue(run.stderr.contains("no output and no CPU use for 1.00 s"), run.stderr)
        XCTAssertTrue(run.stderr.contains("nanosleep"), "the sleeping thread's stack: \(run.stderr)")
        XCTAssertLessThan(run.wall, 10)
        XCTAssertEqual(
            ProcessTable.all().filter { $0.commandLine.contains(marker) && $0.state != "Z" }.map(\.commandLine), [])
    }

    /// A busy command is not quiet: it runs to its end.
    func testACommandUsingACPUIsNotQuiet() throws {
        let lab = try BuiltProducts.executable("lab")
        let run = try ChildProcess.run(
            ChildSpec(
                executable: lab,
                arguments: [
                    "watch", "--quiet-timeout", "1s", "--", "/bin/sh", "-c",
                    "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; echo done",
                ], budget: 60))
        XCTAssertEqual(run.exitCode, 0, run.stderr)
        XCTAssertEqual(run.stdout, "done\n")
    }
}
