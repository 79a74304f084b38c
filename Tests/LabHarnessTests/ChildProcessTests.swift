import CLabSupport
import FindingsTestSupport
import Foundation
import LabHarness
import Synchronization
import XCTest

final class ChildProcessTests: XCTestCase {
    /// The children that only wait out a budget of a second or so (blocked, or reporting
    /// progress that never ends): each is independent of the others and idle while it waits, so
    /// the first test that reads one starts all five side by side, and each test reads its own.
    /// The class then waits about as long as the longest (1.5 s) instead of the five in turn
    /// (~5 s). Each keeps its own budget, and its time is taken from its own start.
    private enum Waiting: CaseIterable {
        case blocked, progressing, groupGrandchild, boundGrandchild, seenInTheTable, ownGroupGrandchild

        var arguments: [String] {
            switch self {
            case .blocked, .seenInTheTable: ["block"]
            case .progressing: ["progress-forever"]
            case .groupGrandchild: ["group-grandchild"]
            case .ownGroupGrandchild: ["own-group-grandchild"]
            case .boundGrandchild: ["grandchild"]
            }
        }

        var budget: Double {
            switch self {
            case .blocked, .groupGrandchild, .seenInTheTable, .ownGroupGrandchild: 1
            case .progressing: 0.6
            case .boundGrandchild: 1.5
            }
        }
    }

    /// One waiting child's run, how long it took from its own start, and (for `seenInTheTable`)
    /// whether the process table listed it while it ran.
    private struct WaitedRun: Sendable {
        var run: ChildRun
        var took: Seconds
        var seen: Bool
    }

    private static let waitedRuns = SideBySide<Waiting, WaitedRun>.OnFirstRead()

    private func waited(_ which: Waiting) throws -> WaitedRun {
        let executable = try fixture()
        return try Self.waitedRuns.value(which, of: Waiting.allCases) { try Self.waitOut($0, executable) }
    }

    /// The `onStart` of `seenInTheTable`: marks `seen` once the process table lists the child.
    private static func lookInTheTable(marking seen: Seen) -> @Sendable (Int32) -> Void {
        { pid in
            let deadline = MonotonicClock.now() + 0.8
            while MonotonicClock.now() < deadline {
                if ProcessTable.children().contains(where: {
                    $0.pid == pid && $0.commandLine.hasSuffix("lab-fixture block")
                }) {
                    seen.flag.store(true, ordering: .relaxed)
                    return
                }
                MonotonicClock.sleep(for: 0.01)
            }
        }
    }

    private final class Seen: Sendable { let flag = Atomic<Bool>(false) }

    /// Runs the fixture as `which` says, timed from its own start.
    private static func waitOut(_ which: Waiting, _ executable: String) throws -> WaitedRun {
        let seen = Seen()
        let onStart = which == .seenInTheTable ? lookInTheTable(marking: seen) : nil
        let start = MonotonicClock.now()
        let run = try ChildProcess.run(
            ChildSpec(executable: executable, arguments: which.arguments, budget: which.budget, onStart: onStart))
        return WaitedRun(run: run, took: MonotonicClock.now() - start, seen: seen.flag.load(ordering: .relaxed))
    }

    func testACompletedChildKeepsItsOutput() throws {
        let run = try runFixture(["print", "hello from the child"])
        XCTAssertEqual(run.outcome, .completed)
        XCTAssertEqual(run.exitCode, 0)
        XCTAssertEqual(run.stdout, "hello from the child\n")
        XCTAssertFalse(processExists(run.pid), "reaped")
    }

    func testANonZeroExitIsAFailureWithItsMessage() throws {
        let run = try runFixture(["exit", "3"])
        XCTAssertEqual(run.outcome, .failed)
        XCTAssertEqual(run.exitCode, 3)
        XCTAssertTrue(run.evidence.contains("failing with 3"), run.evidence)
    }

    /// The known truth: a child that traps is `crashed`, and the evidence is its fatal-error line.
    func testATrapIsACrashWithTheFatalErrorLine() throws {
        let run = try ChildProcess.run(
            ChildSpec(
                executable: fixture(), arguments: ["trap", "boom at line 7"],
                environment: ["SWIFT_BACKTRACE": "enable=no"], budget: 30))
        XCTAssertEqual(run.outcome, .crashed)
        XCTAssertNotNil(run.signal)
        XCTAssertTrue(run.evidence.contains("Fatal error: boom at line 7"), run.evidence)
        XCTAssertFalse(processExists(run.pid))
    }

    /// The known truth: a child that blocks forever is a `deadlock`, reported within its budget
    /// plus one second, and nothing of it is left: not the process, not its group, no zombie.
    func testABlockedChildIsADeadlockWithinBudgetPlusOneSecondAndLeavesNothing() throws {
        let waited = try waited(.blocked)
        let (run, took) = (waited.run, waited.took)
        XCTAssertEqual(run.outcome, .deadlock)
        XCTAssertTrue(run.killedByHarness)
        XCTAssertLessThan(took, 1 + 1)
        XCTAssertGreaterThanOrEqual(took, 1)
        XCTAssertFalse(processExists(run.pid), "no process and no zombie")
        XCTAssertFalse(groupExists(run.pid), "no member of its process group")
        XCTAssertFalse(run.threadsAtKill.isEmpty, "evidence: its threads as they were")
        XCTAssertTrue(run.evidence.contains("no progress reported"), run.evidence)
    }

    /// A stall window ends a child as soon as its progress stops, long before its budget.
    func testAStallWindowEndsAStuckChildEarly() throws {
        let start = MonotonicClock.now()
        let run = try ChildProcess.run(
            ChildSpec(
                executable: fixture(), arguments: ["progress-then-block", "4"],
                budget: 30, stallWindow: 0.3))
        XCTAssertEqual(run.outcome, .deadlock)
        XCTAssertEqual(run.progress, 4)
        XCTAssertLessThan(MonotonicClock.now() - start, 5)
        XCTAssertFalse(processExists(run.pid))
    }

    /// A child still making progress when its budget ends is slow, not stuck.
    func testAChildStillProgressingAtItsBudgetTimedOut() throws {
        let run = try waited(.progressing).run
        XCTAssertEqual(run.outcome, .timedOut)
        XCTAssertGreaterThan(run.progress ?? 0, 1)
        XCTAssertFalse(processExists(run.pid))
    }

    /// Grandchildren in the child's group go with it.
    func testAGrandchildInTheSameGroupIsKilledToo() throws {
        let run = try waited(.groupGrandchild).run
        XCTAssertEqual(run.outcome, .deadlock)
        let line = run.stdout.split(separator: "\n").first { $0.hasPrefix("grandchild ") }
        let grandchild = try XCTUnwrap(line.flatMap { Int32($0.dropFirst("grandchild ".count)) })
        let deadline = MonotonicClock.now() + 2
        while processAlive(grandchild) && MonotonicClock.now() < deadline { MonotonicClock.sleep(for: 0.01) }
        XCTAssertFalse(processAlive(grandchild), "the grandchild \(grandchild) outlived its parent")
    }

    /// A grandchild in a process group of its own that does not bind its life to its parent (as
    /// `swift test` starts the test binary, which `lab watch` lists tests with) is ended too when
    /// the harness kills its parent at the budget: the kill of the child's group misses it, and
    /// once its parent is dead it belongs to init.
    func testAGrandchildInAGroupOfItsOwnIsKilledToo() throws {
        let run = try waited(.ownGroupGrandchild).run
        XCTAssertEqual(run.outcome, .deadlock)
        let line = run.stdout.split(separator: "\n").first { $0.hasPrefix("grandchild ") }
        let grandchild = try XCTUnwrap(line.flatMap { Int32($0.dropFirst("grandchild ".count)) }, run.stdout)
        let alive = { processAlive(grandchild) }
        // Left behind, it would block forever: end it here, whatever the verdict.
        defer {
            let entry = ProcessTable.all().first { $0.pid == grandchild }
            if alive(), entry?.commandLine.hasSuffix(" block") == true { _ = kill(grandchild, SIGKILL) }
        }
        let deadline = MonotonicClock.now() + 2
        while alive() && MonotonicClock.now() < deadline { MonotonicClock.sleep(for: 0.01) }
        XCTAssertFalse(alive(), "the grandchild \(grandchild), in a group of its own, outlived its parent")
    }

    /// A grandchild in a group of its own that binds its life to its parent dies when the
    /// harness kills that parent: no orphan.
    func testAGrandchildBoundToItsParentDiesWithIt() throws {
        let run = try waited(.boundGrandchild).run
        XCTAssertEqual(run.outcome, .deadlock)
        let file = "/tmp/lab-fixture-lifeline-\(run.pid)"
        defer { try? FileManager.default.removeItem(atPath: file) }
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let grandchild = try XCTUnwrap(Int32(text))
        let deadline = MonotonicClock.now() + 2
        while processAlive(grandchild) && MonotonicClock.now() < deadline { MonotonicClock.sleep(for: 0.01) }
        XCTAssertFalse(processAlive(grandchild), "the grandchild \(grandchild) was orphaned")
    }

    /// A relaunched copy of a test binary is tied to its parent before `main` (the C shim's
    /// constructor reads `LAB_HARNESS_CONTINUATION_PARENT`), whether or not it ever calls the
    /// harness: told a parent that is not its own (as when that parent is gone), it exits 70
    /// at once; told its own, it runs. And it removes the variable, so what it starts does not
    /// inherit it. (Before, only the harness's first call in the copy tied it: the fixture ran
    /// and printed with any parent named.)
    func testARelaunchedCopyDiesWithItsParentFromBeforeMain() throws {
        let variable = "LAB_HARNESS_CONTINUATION_PARENT"
        let orphan = try ChildProcess.run(
            ChildSpec(executable: fixture(), arguments: ["print", "ran"], environment: [variable: "2"], budget: 30))
        XCTAssertEqual(orphan.exitCode, 70, orphan.evidence)
        XCTAssertFalse(orphan.stdout.contains("ran"), orphan.stdout)
        let own = try ChildProcess.run(
            ChildSpec(
                executable: fixture(), arguments: ["getenv", variable], environment: [variable: String(getpid())],
                budget: 30))
        XCTAssertEqual(own.outcome, .completed, own.evidence)
        XCTAssertEqual(own.stdout, "(unset)\n", "the copy ran, and what it starts inherits no parent of its")
    }

    /// Output larger than a pipe's buffer on both streams at once does not wedge the child.
    func testLargeOutputOnBothStreamsIsDrained() throws {
        let run = try ChildProcess.run(ChildSpec(executable: fixture(), arguments: ["flood", "2000000"], budget: 30))
        XCTAssertEqual(run.outcome, .completed)
        XCTAssertEqual(run.stdout.utf8.count, 2_000_000)
        XCTAssertEqual(run.stderr.utf8.count, 2_000_000)
    }

    func testOutputBeyondTheLimitIsCountedAndDropped() throws {
        let run = try ChildProcess.run(
            ChildSpec(executable: fixture(), arguments: ["flood", "100000"], budget: 30, outputLimit: 1000))
        XCTAssertEqual(run.outcome, .completed)
        XCTAssertTrue(run.stdout.hasPrefix(String(repeating: "x", count: 1000)))
        XCTAssertTrue(run.stdout.contains("[99000 more bytes dropped]"), String(run.stdout.suffix(80)))
    }

    /// Both platforms the lab supports have a process table (Linux /proc, Darwin libproc): it
    /// lists this process, with its parent and its arguments. (Tests that rely on it skip where
    /// it is unavailable; this one says so if it ever is.)
    func testTheProcessTableListsThisProcess() throws {
        XCTAssertNil(ProcessTable.unavailableReason)
        let me = try XCTUnwrap(ProcessTable.all().first { $0.pid == getpid() })
        XCTAssertEqual(me.parent, getppid())
        XCTAssertTrue(me.commandLine.hasPrefix(CommandLine.arguments[0]), "\(me.commandLine) starts with argv[0]")
    }

    /// The process table sees a running child with its parent and command line, and nothing of
    /// it once it has been reaped.
    func testTheProcessTableSeesChildrenUntilTheyAreReaped() throws {
        if let reason = ProcessTable.unavailableReason { throw XCTSkip(reason) }
        let waited = try waited(.seenInTheTable)
        XCTAssertTrue(waited.seen)
        XCTAssertFalse(ProcessTable.all().contains { $0.pid == waited.run.pid })
    }

    func testAMissingExecutableThrows() {
        XCTAssertThrowsError(try ChildProcess.run(ChildSpec(executable: "/nonexistent/lab-nothing", budget: 1)))
    }

    func testProgressAndResultLinesAreParsedOutOfStdout() {
        XCTAssertEqual(ChildProtocol.parse("@lab:progress 12"), .progress(12))
        XCTAssertEqual(ChildProtocol.parse("@lab:result {\"a\":1}"), .result("{\"a\":1}"))
        XCTAssertNil(ChildProtocol.parse("@lab:progress twelve"))
        XCTAssertNil(ChildProtocol.parse("progress 12"))
    }

    /// A process that ignores SIGCHLD (`SIG_IGN`, or `SA_NOCLDWAIT`, which some server libraries
    /// set) has its children reaped by the kernel, so `waitpid` cannot say how they ended. A child
    /// that exited 0 and one that trapped then both read as `failed`, with the cause named: read
    /// as exited 0, the trap would be recorded as a completion.
    func testAChildWhoseStatusTheKernelReapedIsNeitherCompletedNorCrashed() throws {
        let executable = try fixture()
        for noCldWait: Int32 in [0, 1] {
            XCTAssertEqual(clab_sigchld_discard_status(noCldWait), 0)
            defer { XCTAssertEqual(clab_sigchld_restore(), 0) }
            let how = noCldWait == 1 ? "SA_NOCLDWAIT" : "SIG_IGN"
            for arguments in [["print", "fine"], ["trap", "boom"]] {
                let run = try ChildProcess.run(
                    ChildSpec(
                        executable: executable, arguments: arguments,
                        environment: ["SWIFT_BACKTRACE": "enable=no"], budget: 30))
                XCTAssertEqual(run.outcome, .failed, "\(how), \(arguments[0]): \(run.evidence)")
                XCTAssertNil(run.exitCode, "\(how), \(arguments[0])")
                XCTAssertTrue(
                    run.evidence.contains("its exit status was lost: this process ignores SIGCHLD"),
                    "\(how), \(arguments[0]): \(run.evidence)")
                XCTAssertFalse(processExists(run.pid), "\(how), \(arguments[0]): reaped by the kernel")
            }
        }
    }

    func testSignalNames() {
        XCTAssertEqual(ChildProcess.signalName(SIGILL), "SIGILL (4)")
        XCTAssertEqual(ChildProcess.signalName(SIGKILL), "SIGKILL (9)")
    }
}

/// Darwin's process table takes each command line from the `KERN_PROCARGS2` sysctl; its parser
/// is plain C, so it is checked here on a hand-made answer (layout: xnu bsd/kern/kern_sysctl.c,
/// argc as the first word, then the executable path, padding, the arguments, the environment).
final class ProcArgsParsingTests: XCTestCase {
    private func join(_ argc: Int32, _ rest: [String], size: Int = 256) -> (Int32, String) {
        var bytes = withUnsafeBytes(of: argc) { Array($0) }
        for part in rest { bytes += Array(part.utf8) + [0] }
        var command = [CChar](repeating: 0x7f, count: size)
        let rc = bytes.withUnsafeBufferPointer { raw in
            raw.withMemoryRebound(to: CChar.self) {
                clab_join_procargs2($0.baseAddress, UInt($0.count), &command, UInt(size))
            }
        }
        return (rc, command.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    }

    func testTheArgumentsAreJoinedAndTheEnvironmentLeftOut() {
        let (rc, command) = join(3, ["/bin/lab", "", "", "lab", "all", "--quick", "HOME=/Users/x", "PATH=/bin"])
        XCTAssertEqual(rc, 0)
        XCTAssertEqual(command, "lab all --quick")
    }

    func testALongCommandIsCutAndStillTerminated() {
        let (rc, command) = join(2, ["/x", "", "abcdefghij", "klmnopqrst"], size: 8)
        XCTAssertEqual(rc, 0)
        XCTAssertEqual(command, "abcdefg")
    }

    func testAShortAnswerIsRefused() {
        var command = [CChar](repeating: 0x41, count: 4)
        XCTAssertEqual(clab_join_procargs2("ab", 2, &command, 4), -1)
        XCTAssertEqual(command[0], 0)
    }
}
