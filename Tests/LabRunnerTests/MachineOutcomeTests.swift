import FindingsTestSupport
import Foundation
import LabHarness
import LabHarnessXCTest
import Synchronization
import XCTest

/// The machine's own failures get the machine's outcomes, with real limits, not mocks: a thread
/// limit (`ulimit -u` as an unprivileged user, since root ignores it), an address-space limit
/// (`ulimit -v`; `sh` is dash, whose `ulimit -p` is bash's `-u`) and a starved CPU
/// (`chrt --idle 0` beside busy loops on every core). Each test skips, saying why, where the
/// machine does not allow the limit.
final class MachineOutcomeTests: XCTestCase {
    /// Runs `lab ARGUMENTS --json` under `sh -c PREFIX`; the decoded report and exit status.
    private func lab(
        _ arguments: [String], prefix: String, via launcher: [String] = [], executable: String? = nil,
        budget: Double = 120, onStart: (@Sendable (Int32) -> Void)? = nil
    ) throws -> (ExperimentReport, Int32?) {
        try Self.runLab(
            arguments, prefix: prefix, via: launcher, executable: executable, budget: budget, onStart: onStart)
    }

    private static func runLab(
        _ arguments: [String], prefix: String, via launcher: [String] = [], executable: String? = nil,
        budget: Double = 120, onStart: (@Sendable (Int32) -> Void)? = nil
    ) throws -> (ExperimentReport, Int32?) {
        let lab = try executable ?? BuiltProducts.executable("lab")
        let argv = launcher + ["/bin/sh", "-c", prefix + " exec \"$0\" \"$@\"", lab] + arguments + ["--json"]
        let run = try ChildProcess.run(
            ChildSpec(
                executable: argv[0], arguments: Array(argv.dropFirst()),
                environment: ["SWIFT_BACKTRACE": "enable=no"], budget: budget, onStart: onStart))
        let report = try ExperimentReport.decode(Data(run.stdout.utf8))
        return (report, run.exitCode)
    }

    /// `lab` copied where the user nobody can run it (the build folder may be root's only).
    private func labForNobody() throws -> String {
        guard getuid() == 0 else {
            throw XCTSkip("needs root to run a child as the user nobody (root ignores RLIMIT_NPROC)")
        }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            throw XCTSkip("setpriv (util-linux) is not installed")
        }
        let directory = try temporaryDirectory("nobody")
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let copy = directory.appendingPathComponent("lab")
        try FileManager.default.copyItem(atPath: try BuiltProducts.executable("lab"), toPath: copy.path)
        chmod(directory.path, 0o755)
        chmod(copy.path, 0o755)
        return copy.path
    }

    private let nobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]

    func testAThreadLimitIsResourceLimitedAndJudgesNothing() throws {
        let copy = try labForNobody()
        let (report, status) = try lab(
            ["pool", "--quick", "--variant", "global-flood"], prefix: "ulimit -p 9 || exit 99;",
            via: nobody, executable: copy)
        let flood = try XCTUnwrap(report.variant("global-flood"))
        XCTAssertEqual(flood.outcome, .resourceLimited, flood.evidence ?? "")
        XCTAssertNil(flood.grade, "the machine's outcome is graded neither way")
        XCTAssertTrue(flood.evidence?.contains("9") == true, "names the limit's value: \(flood.evidence ?? "")")
        XCTAssertFalse(report.findings.isEmpty)
        for finding in report.findings {
            XCTAssertEqual(finding.judged, false, finding.summary)
            XCTAssertFalse(finding.reproduced)
            XCTAssertTrue(
                finding.summary.hasPrefix("not judged (global-flood ended resource-limited): the machine: "),
                finding.summary)
        }
        XCTAssertEqual(status, 1)
    }

    func testACrashAtTheAddressSpaceLimitIsOutOfMemory() throws {
        // 300 MB of address space: less than a Swift process with a few threads reserves.
        let (report, status) = try lab(
            ["runloop", "--caller", "async", "--variant", "deadline-heap", "--tasks", "100000"],
            prefix: "ulimit -v 292969 || exit 99;")
        let heap = try XCTUnwrap(report.variant("deadline-heap"))
        XCTAssertEqual(heap.outcome, .outOfMemory, heap.evidence ?? "")
        XCTAssertTrue(heap.evidence?.contains("RLIMIT_AS 300 MB") == true, heap.evidence ?? "")
        XCTAssertNil(heap.grade)
        XCTAssertEqual(status, 1)
    }

    func testRunnableThreadsTheSchedulerPassesOverAreCPUStarved() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chrt") else {
            throw XCTSkip("chrt (util-linux) is not installed")
        }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/taskset") else {
            throw XCTSkip("taskset (util-linux) is not installed")
        }
        // One CPU the test may use, for `lab` and the busy loops alike: whatever the machine has
        // (more CPUs than the process counts, a CPU quota instead of a CPU set), the trial then
        // shares its only CPU with loops the scheduler serves first. A CI run on another
        // machine, with the loops free to run anywhere, saw the trial measure on time 3 of 3.
        let own = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let allowed = own.split(separator: "\n").first { $0.hasPrefix("Cpus_allowed_list:") }
        guard let cpu = allowed?.split(separator: ":").last?.trimmingCharacters(in: .whitespaces)
            .split(whereSeparator: { $0 == "," || $0 == "-" }).first.flatMap({ Int($0) })
        else { throw XCTSkip("no Cpus_allowed_list in /proc/self/status") }
        // That CPU busy at normal priority (one loop), the trial at SCHED_IDLE on it alone: it
        // runs only when the CPU has nothing else to do, which here is never. The busy loops
        // start 80 ms after `lab`, once it has started up: at 0.3 % of a core the 20 ms of CPU a
        // start-up needs took 5 to 6 s a process, for nothing the test looks at. The trial, in
        // the child `lab` starts next, runs starved.
        /// The busy loops of one run: started by `start` 80 ms after `lab`, stopped by `stop`
        /// (after which a late start adds none).
        final class BusyLoops: Sendable {
            let cpu: Int
            private let state = Mutex<(loops: [Process], stopped: Bool)>(([], false))
            init(cpu: Int) { self.cpu = cpu }
            func start() {
                NamedThread.start("test.busy-loops") { [self] in
                    MonotonicClock.sleep(for: 0.08)
                    for _ in 0..<1 {
                        state.withLock { s in
                            guard !s.stopped else { return }
                            let loop = Process()
                            loop.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
                            loop.arguments = ["-c", "\(cpu)", "/bin/sh", "-c", "while :; do :; done"]
                            if (try? loop.run()) != nil { s.loops.append(loop) }
                        }
                    }
                }
            }
            /// Stops the loops; returns how many had started.
            @discardableResult func stop() -> Int {
                let loops = state.withLock { s in
                    defer { s = ([], true) }; return s.loops
                }
                for loop in loops { loop.terminate(); loop.waitUntilExit() }
                return loops.count
            }
        }
        // A SCHED_IDLE thread still gets a sliver of CPU, and the timer trial mostly sleeps, so
        // now and then it is given what it needs and measures honestly. Such a run must judge
        // correctly (no refutation, nothing forbidden); up to three runs must show the starvation.
        var seen: [String] = []
        for _ in 0..<3 {
            let busy = BusyLoops(cpu: cpu)
            defer { busy.stop() }
            let (report, status) = try lab(
                ["runloop", "--quick", "--variant", "timer-init"], prefix: "",
                via: ["/usr/bin/taskset", "-c", "\(cpu)", "/usr/bin/chrt", "--idle", "0"],
                onStart: { _ in busy.start() })
            let loops = busy.stop()
            if report.variants.allSatisfy({ $0.outcome == .cpuStarved }) {
                XCTAssertTrue(
                    report.findings.filter(\.applicable).allSatisfy { $0.judged == false }, "\(report.findings)")
                XCTAssertEqual(status, 1)
                return
            }
            XCTAssertTrue(report.forbiddenVariants.isEmpty, "\(report.variants)")
            XCTAssertTrue(
                report.findings.filter(\.applicable).allSatisfy { $0.reproduced || $0.judged == false },
                "\(report.findings)")
            seen += report.variants.map { "\(loops) loops; \($0.name) \($0.outcome): \($0.evidence ?? "")" }
        }
        XCTFail(
            "in three runs at SCHED_IDLE behind a busy loop on CPU \(cpu) no trial was found CPU-starved: \(seen)")
    }

    // MARK: Round two (issue 30)

    func testOneUsableCPUMakesTheGateClaimNotApplicableNotRefuted() throws {
        let (report, status) = try waited(.oneCPU)
        let gate = try XCTUnwrap(report.finding("pool.gate-keeps-latency"))
        XCTAssertFalse(gate.applicable, gate.summary)
        XCTAssertTrue(
            gate.summary.hasPrefix(
                "not applicable to this run: the gate (1) is not narrower than the pool's 1 starting workers"),
            gate.summary)
        XCTAssertEqual(report.platform.cpus, 1, "the CPUs the process may use, not the CPUs online")
        XCTAssertNotEqual(report.variant("gated")?.grade, .forbidden)
        XCTAssertEqual(status, 1, "a run that judged no finding exits 1")
    }

    /// Runs `lab ARGUMENTS --json` and sends `signal` to its first trial child `after` seconds in
    /// (then SIGCONT `thenContinue` seconds later, for a stop).
    private static func labWithATrialSignalled(
        _ arguments: [String], signal: Int32, after: Double, thenContinue: Double? = nil
    ) throws -> (ExperimentReport, Int32?) {
        return try runLab(
            arguments, prefix: "",
            onStart: { labPID in
                NamedThread.start("test.outsider") {
                    MonotonicClock.sleep(for: after)
                    // lab runs the experiment in-process; its trials are its children with --child-variant.
                    for entry in ProcessTable.children(of: labPID) where entry.commandLine.contains("--child-variant") {
                        let pid = entry.pid
                        kill(pid, signal)
                        if let thenContinue { MonotonicClock.sleep(for: thenContinue); kill(pid, SIGCONT) }
                        return
                    }
                }
            })
    }

    /// The runs of this class that only wait, each a `lab` run of its own: the two signals from
    /// outside, each sent 1 s in to the trial of a `lab pool --quick --variant gated` run (a
    /// stopped trial only waits), the gate confined to one CPU by `taskset` (its trial waits
    /// out its gated work, 1.8 s at 0.1 s of CPU), and the two runs in a cgroup of their own
    /// (the pool's flood under `pids.max`, the sweep the memory cgroup kills). The runs are
    /// independent, so the first test that reads one starts all side by side and each test reads
    /// its own: they take about as long as the stop (2.5 s) instead of 6.7 s one after another.
    /// The CPU-starved test, whose busy loops fill every core, runs after they ended.
    private enum Waiting: CaseIterable {
        case kill, stop, oneCPU, memoryCgroup, pidsCgroup

        func run() throws -> WaitedRun {
            let gated = ["pool", "--quick", "--variant", "gated"]
            let run: (ExperimentReport, Int32?)
            switch self {
            case .kill: run = try labWithATrialSignalled(gated, signal: SIGKILL, after: 1)
            case .stop: run = try labWithATrialSignalled(gated, signal: SIGSTOP, after: 1, thenContinue: 1.5)
            case .oneCPU:
                guard FileManager.default.isExecutableFile(atPath: "/usr/bin/taskset") else {
                    return .skipped("taskset (util-linux) is not installed")
                }
                run = try runLab(gated, prefix: "", via: ["/usr/bin/taskset", "-c", "0"])
            case .memoryCgroup:
                return try Self.inCgroup(
                    "memory", ["memory.limit_in_bytes": "40000000"],
                    ["runloop", "--sweep", "10,100000", "--variant", "deadline-heap"])
            case .pidsCgroup:
                return try Self.inCgroup("pids", ["pids.max": "10"], ["pool", "--quick", "--variant", "global-flood"])
            }
            return .ran(report: run.0, status: run.1)
        }

        /// `lab` with `arguments` in a cgroup of controller `kind` made with `settings` for this run
        /// and removed after it, or why the machine does not allow one.
        static func inCgroup(_ kind: String, _ settings: [String: String], _ arguments: [String]) throws -> WaitedRun {
            let group: String
            switch MachineOutcomeTests.cgroup(kind, settings: settings) {
            case .success(let path): group = path
            case .failure(let skip): return .skipped(skip.description)
            }
            defer { _ = rmdir(group) }
            let run = try runLab(arguments, prefix: "echo $$ > \(group)/cgroup.procs || exit 99;")
            return .ran(report: run.0, status: run.1)
        }
    }

    private enum WaitedRun: Sendable {
        case ran(report: ExperimentReport, status: Int32?)
        /// Why the machine does not allow the run.
        case skipped(String)
    }

    private static let waiting = SideBySide<Waiting, WaitedRun>.OnFirstRead()

    private func waited(_ which: Waiting) throws -> (ExperimentReport, Int32?) {
        switch try Self.waiting.value(which, of: Waiting.allCases, { try $0.run() }) {
        case .ran(let report, let status): return (report, status)
        case .skipped(let reason): throw XCTSkip(reason)
        }
    }

    func testAKillFromOutsideIsNamedAndJudgesNothing() throws {
        let (report, status) = try waited(.kill)
        let gated = try XCTUnwrap(report.variant("gated"))
        XCTAssertEqual(gated.outcome, .killedFromOutside, gated.evidence ?? "")
        XCTAssertNil(gated.grade)
        XCTAssertTrue(
            gated.evidence?.contains("killed by SIGKILL (9) from outside the harness") == true, gated.evidence ?? "")
        let gate = try XCTUnwrap(report.finding("pool.gate-keeps-latency"))
        XCTAssertEqual(gate.judged, false, gate.summary)
        XCTAssertEqual(status, 1)
    }

    func testAStopFromOutsideIsSuspendedNotJudged() throws {
        let (report, _) = try waited(.stop)
        let gated = try XCTUnwrap(report.variant("gated"))
        XCTAssertEqual(gated.outcome, .suspended, gated.evidence ?? "")
        XCTAssertNil(gated.grade)
        XCTAssertEqual(report.finding("pool.gate-keeps-latency")?.judged, false)
    }

    struct CgroupSkip: Error, CustomStringConvertible { let description: String }

    /// A cgroup of `controller` for one run, which removes it after; a skip without root or
    /// without that controller mounted as cgroup v1 (this machine's kind).
    private static func cgroup(_ controller: String, settings: [String: String]) -> Result<String, CgroupSkip> {
        guard getuid() == 0 else { return .failure(CgroupSkip(description: "needs root to create a cgroup")) }
        let root = "/sys/fs/cgroup/\(controller)"
        guard FileManager.default.fileExists(atPath: root + "/cgroup.procs") else {
            return .failure(CgroupSkip(description: "no cgroup v1 \(controller) controller at \(root)"))
        }
        let path = root + "/lab-test-\(getpid())-\(Int.random(in: 0..<1_000_000))"
        guard mkdir(path, 0o755) == 0 else {
            return .failure(CgroupSkip(description: "cannot create \(path): \(String(cString: strerror(errno)))"))
        }
        for (file, value) in settings {
            guard (try? value.write(toFile: path + "/" + file, atomically: false, encoding: .utf8)) != nil else {
                _ = rmdir(path)
                return .failure(CgroupSkip(description: "cannot set \(file)"))
            }
        }
        return .success(path)
    }

    func testAMemoryCgroupsOOMKillIsOutOfMemoryNamingTheCgroupsLimit() throws {
        let (report, status) = try waited(.memoryCgroup)
        let heap = try XCTUnwrap(report.variant("deadline-heap"))
        XCTAssertEqual(heap.outcome, .outOfMemory, heap.evidence ?? "")
        XCTAssertTrue(heap.evidence?.contains("memory.limit_in_bytes of 40 MB") == true, heap.evidence ?? "")
        XCTAssertTrue(heap.evidence?.contains("oom_kill of memory.oom_control") == true, heap.evidence ?? "")
        XCTAssertNil(heap.grade)
        XCTAssertEqual(status, 1)
    }

    func testAPidsCgroupsLimitIsNamedWithItsValue() throws {
        let (report, _) = try waited(.pidsCgroup)
        let flood = try XCTUnwrap(report.variant("global-flood"))
        XCTAssertEqual(flood.outcome, .resourceLimited, flood.evidence ?? "")
        XCTAssertTrue(flood.evidence?.contains("pids.max of 10") == true, flood.evidence ?? "")
        XCTAssertFalse(flood.evidence?.contains("RLIMIT_NPROC") == true, flood.evidence ?? "")
        for finding in report.findings { XCTAssertEqual(finding.judged, false, finding.summary) }
    }

    func testTooFewFileDescriptorsAreResourceLimitedNamingRLimitNofile() throws {
        let (report, _) = try lab(
            ["pool", "--quick", "--variant", "gated,serial-queue"], prefix: "ulimit -n 14 || exit 99;")
        let limited = report.variants.filter { $0.outcome == .resourceLimited }
        XCTAssertFalse(
            limited.isEmpty,
            report.variants.map { "\($0.name) \($0.outcome): \($0.evidence ?? "")" }.joined(separator: "\n"))
        for variant in report.variants {
            XCTAssertNotEqual(
                variant.grade, .forbidden, "\(variant.name) \(variant.outcome): \(variant.evidence ?? "")")
        }
        XCTAssertTrue(
            limited.allSatisfy { $0.evidence?.contains("RLIMIT_NOFILE 14") == true },
            limited.map { $0.evidence ?? "" }.joined(separator: "\n"))
    }
}
