import Foundation
import Synchronization
import CLabSupport

/// What to launch as a child trial, and how long it may take.
public struct ChildSpec: Sendable {
    /// Absolute path of the executable. It is executed directly, never through a shell.
    public var executable: String
    /// Arguments after `argv[0]` (which is the executable path).
    public var arguments: [String]
    /// Variables added to (or replacing in) the inherited environment.
    public var environment: [String: String]
    /// Wall-clock budget in seconds: past it the child, its process group and its descendants
    /// in other groups are killed.
    var budget: Seconds
    /// If set, the child is killed as soon as it has reported no progress for this long since
    /// its last report (see `ChildProtocol`); that is a deadlock. The window opens at the
    /// child's first progress report: a child that never reports is bounded by its budget only.
    public var stallWindow: Seconds?
    /// Bytes kept of each of stdout and stderr; the rest is counted and dropped.
    var outputLimit: Int
    /// Called (on the thread running the child) with each progress value the child reports.
    public var onProgress: (@Sendable (Int) -> Void)?
    /// Called with the child's pid as soon as it is running (to signal it, for example), on the
    /// thread that runs the child and before its output is read: keep it short.
    var onStart: (@Sendable (Int32) -> Void)?
    /// End the child as soon as its user is seen at its thread limit (`RLIMIT_NPROC`): a
    /// trial that cannot create threads measures nothing, and waiting for its budget only
    /// holds the limit longer for every other trial. Off for a child that runs trials of its
    /// own (an experiment under `lab all`), which names them itself.
    var endsAtThreadLimit = false
    /// Copy what the child writes to this process's own stdout and stderr as it comes, besides
    /// keeping it in the run: for a child whose output is the user's to read (the relaunched
    /// tests after a hang, whose results belong in the same `swift test` output).
    var echoesOutput = false

    public init(
        executable: String, arguments: [String] = [], environment: [String: String] = [:],
        budget: Seconds, stallWindow: Seconds? = nil, outputLimit: Int = 4 << 20,
        onProgress: (@Sendable (Int) -> Void)? = nil, onStart: (@Sendable (Int32) -> Void)? = nil
    ) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.budget = budget
        self.stallWindow = stallWindow
        self.outputLimit = outputLimit
        self.onProgress = onProgress
        self.onStart = onStart
    }
}

/// How a child trial ended.
public enum ChildOutcome: String, Sendable, Codable, CaseIterable {
    /// Exited with status 0.
    case completed
    /// Killed by the harness after making no progress: for the stall window, or over the last
    /// quarter of its budget (or at all) when it had no window.
    case deadlock
    /// Killed at its budget while it was still making progress: too slow, not stuck.
    case timedOut = "timed-out"
    /// Ended by a signal it did not get from the harness: a trap, an abort, a segfault.
    case crashed
    /// Exited with a non-zero status, or ended with its status lost (`ChildRun.exitStatusLost`).
    case failed
    /// Killed because the whole run was interrupted (`ChildProcess.terminateAll()`).
    case interrupted
}

/// Everything a finished child trial left behind.
public struct ChildRun: Sendable {
    public var outcome: ChildOutcome
    public var pid: Int32
    /// Exit status, when it exited.
    public var exitCode: Int32?
    /// Terminating signal, when a signal ended it.
    public var signal: Int32?
    /// Whether the harness killed it (budget, stall or interrupt).
    public var killedByHarness: Bool
    /// The child ended but its exit status could not be had: `waitpid` found no such child, for
    /// the kernel had reaped it (this process ignores SIGCHLD, or sets `SA_NOCLDWAIT`, as some
    /// server libraries do) or someone else in this process had. It exited 0, failed or crashed:
    /// nobody can tell, so the run is `failed` (never `completed`), `exitCode` and `signal` are
    /// `nil`, and `evidence` says why. A check that expects a particular end must not count it.
    public var exitStatusLost = false
    /// Seconds from spawn to reaping.
    public var wall: Seconds
    /// Standard output without the protocol lines.
    public var stdout: String
    public var stderr: String
    /// The last progress value the child reported, if any.
    public var progress: Int?
    /// Seconds after spawn of the last progress report.
    public var lastProgressAt: Seconds?
    /// The payload of the child's `@lab:result` line, if it wrote one.
    public var resultPayload: String?
    /// The child's threads and their states just before the harness killed it.
    public var threadsAtKill: [ThreadInfo]
    /// One line that explains the outcome: the first fatal-error line of a crash, the thread
    /// states of a deadlock, the exit status of a failure.
    public var evidence: String
    /// Every thread's return addresses just before the harness killed it for a stall or at its
    /// budget; `stacks` names them.
    public var rawStacks: RawStacks? = nil
    /// The machine's part, when the machine broke the trial: checked before a kill for a stall
    /// or at the budget (thread limit, CPU) and after a crash (memory); see `MachineCheck`.
    public var machine: MachineCondition? = nil
}

enum ChildProcessError: Error, CustomStringConvertible {
    case spawnFailed(path: String, errno: Int32)
    case pipeFailed(errno: Int32)

    var description: String {
        switch self {
        case .spawnFailed(let path, let e): return "cannot launch \(path): \(String(cString: strerror(e)))"
        case .pipeFailed(let e): return "cannot create a pipe: \(String(cString: strerror(e)))"
        }
    }
}

/// Launches child trials and always reaps them.
///
/// Each child runs in its own process group, with stdin on `/dev/null` and stdout/stderr on
/// pipes that are read while it runs (so a chatty child cannot block on a full pipe). Killing
/// takes the child's descendants first (by parent links, whatever groups they are in), then the
/// whole group with `SIGKILL`; the child is reaped with `waitpid`, and the group is killed once
/// more afterwards for any straggling grandchildren: no zombie, no orphan. Children that use
/// the lab's `ChildLifeline` also die if this process dies. A child that ends on its own
/// leaves only its group to be killed: a descendant in another group has passed to init by then.
public enum ChildProcess {
    private static let live = Mutex<Set<Int32>>([])
    private static let interrupting = Atomic<Bool>(false)

    /// Runs one child to its end and classifies the result. Blocks the calling thread; keep the
    /// calling thread alive for the child's lifetime (children bound with `PR_SET_PDEATHSIG`
    /// die with the thread that spawned them).
    public static func run(_ spec: ChildSpec) throws -> ChildRun {
        let outPipe = try makePipe()
        let errPipe: (read: Int32, write: Int32)
        do { errPipe = try makePipe() } catch { close(outPipe.read); close(outPipe.write); throw error }

        var start = MonotonicClock.now()
        var pausedSeen = pausedTotal
        // Before the spawn: a child the OOM killer ends in its first milliseconds still moves it.
        let oomKillsBefore = clab_cgroup_oom_kills(0)
        let pid: Int32
        do {
            pid = try spawn(spec, stdout: outPipe.write, stderr: errPipe.write)
        } catch {
            [outPipe.read, outPipe.write, errPipe.read, errPipe.write].forEach { close($0) }
            throw error
        }
        close(outPipe.write)
        close(errPipe.write)
        live.withLock { _ = $0.insert(pid) }
        defer { live.withLock { _ = $0.remove(pid) } }
        spec.onStart?(pid)

        var out = OutputCollector(limit: spec.outputLimit, parsesProtocol: true, onProgress: spec.onProgress)
        var err = OutputCollector(limit: spec.outputLimit, parsesProtocol: false)
        var open: [Int32] = [outPipe.read, errPipe.read]
        var killReason: KillReason?
        var threadsAtKill: [ThreadInfo] = []
        var stacks: RawStacks?
        var status: Reaped?
        // Once the child has ended or been killed, what is left in the pipes is read until
        // this instant at the latest (a grandchild could otherwise hold them open).
        var drainUntil: Seconds?
        var memory = MachineCheck.MemoryWatch(pid: pid, oomKillsAtStart: oomKillsBefore)
        var threadLimit = MachineCheck.ThreadLimitWatch(pid: pid)
        var machine: MachineCondition?
        // What the look at its threads before a kill found when it did not blame the machine.
        var machineLook: String?
        // Whether the child was seen stopped by someone else (SIGSTOP), looked at every 100 ms.
        var stoppedFromOutside: MachineCondition?
        var lastStateLook: Seconds = 0

        func terminate(_ reason: KillReason) {
            killReason = reason
            // Empty where the platform cannot look at another process's threads (Darwin).
            threadsAtKill = ThreadCensus.threads(pid: pid)
            // Before calling it stuck: could it create the thread it waited for, did it get a CPU?
            if reason == .stall || reason == .budget {
                (machine, machineLook) = MachineCheck.atKill(
                    pid: pid, threads: threadsAtKill, lifetime: MonotonicClock.now() - start)
                stacks = StackCapture.captureRaw(pid: pid)
            }
            endTree(pid)
            drainUntil = MonotonicClock.now() + 1
        }

        func enforceLimits(at now: Seconds) {
            guard killReason == nil, status == nil else { return }
            if interrupting.load(ordering: .relaxed) {
                terminate(.interrupt)
            } else if now - start >= spec.budget {
                terminate(.budget)
            } else if let window = spec.stallWindow, let since = out.lastProgressAt, now - since >= window {
                terminate(.stall)
            } else if spec.endsAtThreadLimit, threadLimit.reached != nil {
                terminate(.threadLimit)
            }
        }

        while !open.isEmpty {
            let now = MonotonicClock.now()
            // Time the run spent paused (Ctrl-Z) counts against neither the budget nor the
            // stall window: the child was stopped with everything else.
            if pausedTotal > pausedSeen {
                let paused = pausedTotal - pausedSeen
                start += paused
                out.shiftProgress(by: paused)
                pausedSeen += paused
            }
            enforceLimits(at: now)
            if let drainUntil, now >= drainUntil { break }
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if memory.limited && status == nil && killReason == nil { memory.sample(pid: pid) }
            if status == nil && killReason == nil { threadLimit.sample(now: now) }
            if status == nil && killReason == nil && stoppedFromOutside == nil && now - lastStateLook >= 0.1 {
                lastStateLook = now
                if clab_process_state(pid) == Int32(UInt8(ascii: "T")), !pausingOrJustResumed(now: now) {
                    stoppedFromOutside = MachineCheck.stoppedFromOutside(seenAt: now - start)
                }
            }
            let ready = poll(&fds, nfds_t(fds.count), 20)
            if ready < 0 && errno != EINTR { break }
            for entry in fds where entry.revents != 0 {
                let echo: Int32? = spec.echoesOutput ? (entry.fd == outPipe.read ? 1 : 2) : nil
                let more =
                    entry.fd == outPipe.read
                    ? readAvailable(entry.fd, into: &out, echo: echo)
                    : readAvailable(entry.fd, into: &err, echo: echo)
                if !more {
                    open.removeAll { $0 == entry.fd }
                }
            }
            if status == nil, let s = reap(pid, block: false) {
                status = s
                // terminateAll() signals the group itself, so the child may be gone before
                // this loop saw the interrupt: it was still interrupted, not crashed.
                if killReason == nil && interrupting.load(ordering: .relaxed) { killReason = .interrupt }
                if drainUntil == nil {
                    killGroup(pid, leaderUnreaped: false)
                    drainUntil = MonotonicClock.now() + 0.5
                }
            }
        }
        close(outPipe.read)
        close(errPipe.read)

        // Reap. A child that closed its streams but lives on still answers to the budget. Its
        // streams close as it exits, a moment before it can be reaped: the first looks come
        // soon (0.2 ms, doubling up to 5 ms), so an ordinary child is not charged a 5 ms nap.
        var nap: Seconds = 0.0002
        while status == nil {
            if killReason != nil { status = reap(pid, block: true); break }
            if let s = reap(pid, block: false) {
                status = s
                if interrupting.load(ordering: .relaxed) { killReason = .interrupt }
                break
            }
            enforceLimits(at: MonotonicClock.now())
            if killReason == nil { MonotonicClock.sleep(for: nap); nap = min(2 * nap, 0.005) }
        }
        // Stragglers in the group (grandchildren) go too. The leader is reaped by now, so only
        // the group is signalled: its id cannot be reused while any member lives.
        killGroup(pid, leaderUnreaped: false)
        let wall = MonotonicClock.now() - start
        out.finish()
        err.finish()

        var run = classify(
            pid: pid, status: status ?? .lost, killReason: killReason, wall: wall,
            out: out, err: err, start: start, spec: spec, threadsAtKill: threadsAtKill)
        // The machine's part: the thread limit reached while it ran (whatever it then did), what
        // the look before a kill found, or a crash at the memory limit.
        if run.outcome != .interrupted {
            run.machine =
                MachineCheck.fromChildStderr(err.text) ?? threadLimit.reached ?? stoppedFromOutside ?? machine
                ?? (run.outcome == .crashed ? memory.crashVerdict(signal: run.signal, stderr: err.text) : nil)
                ?? (run.outcome == .crashed && !run.killedByHarness
                    ? run.signal.flatMap {
                        MachineCheck.signalFromOutside(
                            signal: $0, fatalLine: err.firstFatalLine, pid: pid,
                            cpuLimit: memory.cpuLimit, fileSizeLimit: memory.fileSizeLimit)
                    }
                    : nil)
                ?? (run.outcome == .crashed || run.outcome == .failed
                    ? MachineCheck.descriptorsExhausted(stderr: err.text, limit: memory.openFilesLimit) : nil)
            if run.machine == nil, let machineLook { run.evidence += "; before the kill, " + machineLook }
        }
        return StackEvidence.attach(stacks, to: run)
    }

    /// How long `executable` takes to start and exit on its own: spawned as a trial child is
    /// (`spawn`, the same environment), its stdout a pipe whose end of stream says it is
    /// exiting, its stderr /dev/null, and reaped, with no watch, protocol or output collected.
    /// `lab bench` sets it beside a trial child's start-up, so the harness's part can be told
    /// from the binary's own (its dynamic libraries, loaded at every start). `nil` if it could
    /// not be spawned or did not end within `budget` seconds (it is killed then).
    public static func bareStart(_ executable: String, arguments: [String], budget: Seconds = 5) -> Seconds? {
        guard let pipe = try? makePipe() else { return nil }
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer { close(pipe.read); if null >= 0 { close(null) } }
        let start = MonotonicClock.now()
        let spec = ChildSpec(executable: executable, arguments: arguments, budget: budget)
        let spawned = try? spawn(spec, stdout: pipe.write, stderr: null >= 0 ? null : pipe.write)
        close(pipe.write)
        guard let pid = spawned else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        var open = true
        while open, MonotonicClock.now() - start < budget {
            var fd = pollfd(fd: pipe.read, events: Int16(POLLIN), revents: 0)
            guard poll(&fd, 1, 20) > 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { read(pipe.read, $0.baseAddress, $0.count) }
            if n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN) { open = false }
        }
        var nap: Seconds = 0.0001
        while true {
            if reap(pid, block: false) != nil { return open ? nil : MonotonicClock.now() - start }
            if open || MonotonicClock.now() - start >= budget {
                endTree(pid)
                _ = reap(pid, block: true)
                return nil
            }
            MonotonicClock.sleep(for: nap)
            nap = min(2 * nap, 0.005)
        }
    }

    /// Kills every child this process is running (their groups, and what they started in
    /// groups of their own) and marks their runs `interrupted`. Safe to call from a
    /// signal-handling queue.
    static func terminateAll() {
        interrupting.store(true, ordering: .relaxed)
        // Descendants while their parents still hold them, then groups only: the run loop of
        // each child then kills and reaps its leader itself.
        for pid in live.withLock({ Array($0) }) {
            ProcessTree.end(below: pid, budget: 1)
            killGroup(pid, leaderUnreaped: false)
        }
    }

    private static let pauses = Mutex<(since: Seconds?, total: Seconds, resumedAt: Seconds?)>((nil, 0, nil))

    /// Seconds the run has spent paused so far (a pause still going on is not counted yet).
    static var pausedTotal: Seconds { pauses.withLock { $0.total } }

    /// Ctrl-Z: stops every running child's process group with `SIGTSTP` (a trial child stops;
    /// a lab program under `lab all` passes it on to its own trials, then stops), before this
    /// process stops itself. Children run in process groups of their own, so the terminal's
    /// `SIGTSTP` never reaches them.
    static func pauseAll() {
        pauses.withLock { if $0.since == nil { $0.since = MonotonicClock.now() } }
        for pid in live.withLock({ Array($0) }) { _ = kill(-pid, SIGTSTP) }
    }

    /// `fg`: continues every running child's process group and charges the pause to nobody.
    static func resumeAll() {
        for pid in live.withLock({ Array($0) }) { _ = kill(-pid, SIGCONT) }
        pauses.withLock { p in
            if let since = p.since { p.total += MonotonicClock.now() - since; p.since = nil }
            p.resumedAt = MonotonicClock.now()
        }
    }

    /// Whether the harness itself has its children stopped (Ctrl-Z), or let them go less than
    /// a second ago (a child may still be stopped until its SIGCONT lands): a stopped child is
    /// then the harness's doing, not someone else's. Also true while this process was
    /// stopped itself (`now` then lags the pause's bookkeeping).
    static func pausingOrJustResumed(now: Seconds) -> Bool {
        pauses.withLock { p in p.since != nil || p.resumedAt.map { MonotonicClock.now() - $0 < 1 } == true }
    }

    /// Whether `terminateAll()` was called.
    public static var isInterrupted: Bool { interrupting.load(ordering: .relaxed) }

    /// The number of children currently running.
    public static var liveCount: Int { live.withLock { $0.count } }

    /// The absolute path of the running executable (for relaunching oneself as a child).
    public static func currentExecutablePath() -> String {
        if let path = HostPlatform.executablePathFromKernel() { return path }
        if let path = Bundle.main.executablePath { return path }
        return URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path
    }

    // MARK: - Mechanics

    private enum KillReason { case budget, stall, interrupt, threadLimit }

    /// Ends a child the harness is killing, and everything it started. Its descendants go first,
    /// found by parent links while the child still lives to hold them (once it dies they pass
    /// to init and cannot be told from anyone else's): a tool such as `swift test` runs the
    /// binary it starts in a process group of its own, which the group kill misses, so `swift
    /// test list` killed at its budget left that binary running. Then the group and the child.
    private static func endTree(_ pid: Int32) {
        ProcessTree.end(below: pid, budget: 1)
        killGroup(pid, leaderUnreaped: true)
    }

    /// SIGKILL to the child's process group, and to the child itself while it is not yet
    /// reaped (a reaped pid may already belong to someone else).
    private static func killGroup(_ pid: Int32, leaderUnreaped: Bool) {
        _ = kill(-pid, SIGKILL)
        if leaderUnreaped { _ = kill(pid, SIGKILL) }
    }

    private static func makePipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard clab_pipe_cloexec(&fds) == 0 else { throw ChildProcessError.pipeFailed(errno: errno) }
        return (fds[0], fds[1])
    }

    /// `clab_spawn`: a new process group, stdin from /dev/null, no blocked signals, and the
    /// signals a test runner or the lab may have changed back at their defaults.
    private static func spawn(_ spec: ChildSpec, stdout: Int32, stderr: Int32) throws -> Int32 {
        var environment = ProcessInfo.processInfo.environment
        environment[ChildLifeline.parentVariable] = String(getpid())
        for (key, value) in spec.environment { environment[key] = value }
        let argv = ([spec.executable] + spec.arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }

        var pid: Int32 = 0
        let rc = clab_spawn(&pid, spec.executable, argv, envp, stdout, stderr)
        guard rc == 0 else { throw ChildProcessError.spawnFailed(path: spec.executable, errno: rc) }
        return pid
    }

    /// Reads what is available; returns false at end of stream.
    private static func readAvailable(_ fd: Int32, into collector: inout OutputCollector, echo: Int32? = nil) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n > 0 {
            if let echo { writeAll(buffer[0..<n], to: echo) }
            collector.append(buffer[0..<n])
            return true
        }
        if n < 0 && (errno == EINTR || errno == EAGAIN) { return true }
        return false
    }

    /// Writes `bytes` to `fd` whole; a failing descriptor loses them and nothing else.
    private static func writeAll(_ bytes: ArraySlice<UInt8>, to fd: Int32) {
        var rest = bytes
        while !rest.isEmpty {
            let wrote = rest.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if wrote < 0 && errno == EINTR { continue }
            if wrote <= 0 { return }
            rest = rest.dropFirst(wrote)
        }
    }

    /// How a child's end was read.
    private enum Reaped {
        /// `waitpid`'s raw status.
        case status(Int32)
        /// `waitpid` found no such child: it has ended (a child not yet reaped is still found),
        /// and whoever reaped it (the kernel, when this process ignores SIGCHLD) kept its status.
        case lost
    }

    /// `waitpid` for `pid`: how it ended once it has, `nil` while it runs.
    private static func reap(_ pid: Int32, block: Bool) -> Reaped? {
        var status: Int32 = 0
        while true {
            let r = waitpid(pid, &status, block ? 0 : WNOHANG)
            if r == pid { return .status(status) }
            if r == 0 { return nil }
            if errno == EINTR { continue }
            return .lost
        }
    }

    /// Why `waitpid` found no child: the kernel's reaping when SIGCHLD is set so, read now.
    private static func lostStatusCause() -> String {
        clab_children_reaped_by_kernel() != 0
            ? "this process ignores SIGCHLD (SIG_IGN or SA_NOCLDWAIT), so the kernel reaped the child"
            : "waitpid found no such child: something else in this process reaped it"
    }

    private static func classify(
        pid: Int32, status reaped: Reaped, killReason: KillReason?, wall: Seconds,
        out: OutputCollector, err: OutputCollector, start: Seconds,
        spec: ChildSpec, threadsAtKill: [ThreadInfo]
    ) -> ChildRun {
        var exitCode: Int32?, signal: Int32?
        if case .status(let status) = reaped {
            let exited = (status & 0x7f) == 0
            exitCode = exited ? (status >> 8) & 0xff : nil
            signal = exited ? nil : status & 0x7f
        }
        var lost = false
        let progressNote = out.progress.map { "progress \($0)" } ?? "no progress reported"
        let lastProgress = out.lastProgressAt.map { $0 - start }
        var outcome: ChildOutcome
        var evidence: String

        switch killReason {
        case .interrupt?:
            outcome = .interrupted
            evidence = "interrupted after \(Format.seconds(wall)) (\(progressNote))"
        case .stall?:
            outcome = .deadlock
            let window = Format.seconds(spec.stallWindow ?? 0), census = ThreadCensus.describe(threadsAtKill)
            evidence = "no progress for \(window); killed after \(Format.seconds(wall)) (\(progressNote); \(census))"
        case .threadLimit?:
            // The machine's part (`ChildRun.machine`) names the outcome.
            outcome = .failed
            evidence =
                "ended after \(Format.seconds(wall)) when it reached a thread limit (\(progressNote); \(ThreadCensus.describe(threadsAtKill)))"
        case .budget?:
            // Progress in the last quarter of the budget means slow, not stuck.
            let quiet = spec.stallWindow ?? spec.budget / 4
            let moving = lastProgress.map { spec.budget - $0 < quiet } ?? false
            outcome = moving ? .timedOut : .deadlock
            evidence =
                "killed at its \(Format.seconds(spec.budget)) budget (\(progressNote); \(ThreadCensus.describe(threadsAtKill)))"
        case nil:
            if case .lost = reaped {
                // Neither completed nor crashed: that is what nobody can tell any more.
                lost = true
                outcome = .failed
                let said = err.firstFatalLine ?? err.lastLine
                evidence =
                    "its exit status was lost: \(lostStatusCause())" + (said.map { "; its stderr said: \($0)" } ?? "")
            } else if let code = exitCode {
                outcome = code == 0 ? .completed : .failed
                evidence = code == 0 ? "exited 0" : "exited \(code)" + (err.lastLine.map { ": \($0)" } ?? "")
            } else {
                outcome = .crashed
                let sig = signal ?? 0
                evidence = err.firstFatalLine ?? "killed by \(signalName(sig))"
            }
        }
        return ChildRun(
            outcome: outcome, pid: pid, exitCode: exitCode, signal: signal,
            killedByHarness: killReason != nil, exitStatusLost: lost, wall: wall, stdout: out.text,
            stderr: err.text, progress: out.progress, lastProgressAt: lastProgress, resultPayload: out.result,
            threadsAtKill: threadsAtKill, evidence: evidence)
    }

    /// `SIGILL (4)` and the like.
    public static func signalName(_ signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL",
            SIGTRAP: "SIGTRAP", SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE",
            SIGKILL: "SIGKILL", SIGSEGV: "SIGSEGV", SIGPIPE: "SIGPIPE", SIGTERM: "SIGTERM",
        ]
        return "\(names[signal] ?? "signal") (\(signal))"
    }
}
