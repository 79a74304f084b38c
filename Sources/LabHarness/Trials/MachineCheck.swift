import CLabSupport
import Foundation
import Synchronization

/// The machine broke a trial: what it was, the figures that showed it, and one line for reports.
public struct MachineCondition: Sendable, Equatable {
    /// `resource-limited`, `cpu-starved` or `out-of-memory`.
    public var outcome: Outcome
    /// "the machine: ..." with the limit's value and what was measured against it.
    public var evidence: String
    public var metrics: Metrics
}

extension MachineCondition {
    /// `record` as the machine left it: this outcome, this condition's figures added to its
    /// metrics, and the trial's own ending kept in the evidence line.
    public func apply(to record: VariantRecord) -> VariantRecord {
        var record = record
        for (name, value) in metrics { record.metrics[name] = value }
        record.evidence = evidence + "; the trial itself ended \(record.outcome)" + (record.evidence.map { ": \($0)" } ?? "")
        record.outcome = outcome
        return record
    }
}

/// Looks at the machine when a trial went wrong, before it is called a deadlock or a crash of
/// the program's own: was the user at its thread limit, were the trial's threads runnable but
/// given no CPU, did it die at its memory limit. Every check measures; where the platform keeps
/// no such figure (Darwin: no /proc, no schedstat) it finds nothing, and the program's own
/// outcome stands.
public enum MachineCheck {
    // MARK: Threads and processes

    /// The thread limit when user `uid`'s tasks have reached it (or passed it: a limit lowered
    /// under running processes), else `nil`. Root is never held to `RLIMIT_NPROC` (Linux
    /// exempts the initial user namespace's root and CAP_SYS_RESOURCE/CAP_SYS_ADMIN holders,
    /// kernel/fork.c `copy_process`), so its limit is never "reached".
    public static func threadLimitReached(limit: Int64, uid: Int64) -> MachineCondition? {
        guard limit > 0, uid > 0 else { return nil }
        let tasks = clab_user_task_count(uid)
        guard tasks >= 0, tasks >= limit else { return nil }
        return threadLimit(limit: limit, uid: uid, tasks: tasks)
    }

    static func threadLimit(limit: Int64, uid: Int64, tasks: Int64) -> MachineCondition {
        MachineCondition(outcome: .resourceLimited,
                         evidence: "the machine: user \(uid) had \(tasks) tasks (threads included) against its RLIMIT_NPROC of \(limit), "
                            + "so no thread or process could be created",
                         metrics: ["limit.nproc": Double(limit), "limit.user_tasks": Double(tasks)])
    }

    /// The thread limit as seen for process `pid` (its own limit, its real user).
    public static func threadLimitReached(pid: Int32) -> MachineCondition? {
        threadLimitReached(limit: clab_limit_nproc(pid), uid: clab_process_real_uid(pid))
    }

    /// This process's failed thread creations, when there were any: `pthread_create` answered
    /// `EAGAIN` (counted by the shim, whoever called it).
    public static func threadCreationFailed() -> MachineCondition? {
        let failures = clab_thread_create_failures()
        guard failures > 0 else { return nil }
        let limit = clab_limit_nproc(0)
        let tasks = limit > 0 ? clab_user_task_count(clab_process_real_uid(0)) : -1
        let figures = limit > 0 ? "RLIMIT_NPROC \(limit)" + (tasks >= 0 ? ", \(tasks) tasks of this user now" : "") : "RLIMIT_NPROC unlimited"
        var metrics: Metrics = ["limit.thread_create_failures": Double(failures)]
        if limit > 0 { metrics["limit.nproc"] = Double(limit) }
        return MachineCondition(outcome: .resourceLimited,
                                evidence: "the machine: pthread_create failed \(failures) × with EAGAIN (\(figures)): threads the trial asked for were never created",
                                metrics: metrics)
    }

    /// The line a child writes on stderr when its threads could not be created, which the
    /// parent reads even when it has to kill the child (`fromChildStderr`).
    static let stderrMark = "lab: the machine: "

    /// The machine's condition a child told on stderr, if it did.
    public static func fromChildStderr(_ text: String) -> MachineCondition? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(stderrMark) }) else { return nil }
        return MachineCondition(outcome: .resourceLimited, evidence: String(line.dropFirst("lab: ".count)), metrics: [:])
    }

    /// The thread limit of a running child, looked at every 100 ms by the parent while it runs
    /// (only when the limit is one a trial could reach: see `MachineWatch.watchedLimit`). A
    /// child that could not create a thread may have no thread left to say so (its progress
    /// reporter is a thread too), and the moment can pass before the harness ends it, so the
    /// parent watches for it.
    public struct ThreadLimitWatch: Sendable {
        var limit: Int64
        var uid: Int64
        var lastLook: Seconds = 0
        /// The first look that found the user at its limit.
        public private(set) var reached: MachineCondition?

        public init(pid: Int32) {
            limit = clab_limit_nproc(pid)
            uid = clab_process_real_uid(pid)
        }

        /// Whether there is a limit worth watching.
        public var limited: Bool { limit > 0 && limit <= MachineWatch.watchedLimit && uid > 0 }

        public mutating func sample(now: Seconds) {
            guard limited, reached == nil, now - lastLook >= 0.1 else { return }
            lastLook = now
            reached = threadLimitReached(limit: limit, uid: uid)
        }
    }

    /// The evidence when `posix_spawn` itself failed with `EAGAIN`.
    public static func spawnRefused() -> String {
        let limit = clab_limit_nproc(0)
        let tasks = clab_user_task_count(clab_process_real_uid(0))
        let figures = limit > 0 ? "RLIMIT_NPROC \(limit)" + (tasks >= 0 ? ", \(tasks) tasks of this user" : "") : "no RLIMIT_NPROC"
        return "the machine: the child could not be created (posix_spawn: EAGAIN; \(figures))"
    }

    // MARK: CPU

    /// One thread's run-time accounting: seconds on a CPU and runnable but waiting for one.
    struct RunTime: Sendable { var onCPU: Seconds; var waiting: Seconds }

    static func runTime(pid: Int32, tid: Int) -> RunTime? {
        var run: UInt64 = 0, wait: UInt64 = 0
        guard clab_thread_schedstat(pid, tid, &run, &wait) == 0 else { return nil }
        return RunTime(onCPU: Double(run) / 1e9, waiting: Double(wait) / 1e9)
    }

    /// How long the window of `starvationProbe` lasts.
    static let probeWindow: Seconds = 0.3

    /// Whether process `pid`'s threads are starved now: over `probeWindow`, its threads spent
    /// at least half the window runnable but waiting for a CPU, and were on one for less than a
    /// quarter of that wait. A deadlocked program's threads sleep (no run-queue time); a busy
    /// loop on a loaded machine still gets its share (two thirds of a core beside two
    /// `stress` workers on two cores); only a process the scheduler passes over waits and does
    /// not run. `nil` when not starved or the platform keeps no run-queue time.
    public static func starvation(pid: Int32, threads: [ThreadInfo], lifetime: Seconds = 0) -> MachineCondition? {
        var before: [Int: RunTime] = [:]
        for thread in threads { before[thread.id] = runTime(pid: pid, tid: thread.id) }
        guard !before.isEmpty else { return nil }
        let start = MonotonicClock.now()
        MonotonicClock.sleep(for: probeWindow)
        let window = MonotonicClock.now() - start
        // Threads come and go (a pool); the ones seen at both ends are compared.
        var waited: Seconds = 0, ran: Seconds = 0, total: Seconds = 0
        for (id, first) in before {
            guard let last = runTime(pid: pid, tid: id) else { continue }
            waited += last.waiting - first.waiting
            ran += last.onCPU - first.onCPU
            total += last.waiting
        }
        let lowClass = clab_low_cpu_class(pid) == 1
        let share = lowClass ? MachineWatch.lowClassStarvedShare : MachineWatch.starvedShare
        // A process the scheduler serves last is also judged on its whole life: a wait that
        // large means the window that called it stuck was itself a wait for a CPU.
        let starvedNow = waited >= window * share && ran < waited / 4
        let starvedAllAlong = lowClass && lifetime > 0 && total >= max(lifetime * share, MachineWatch.starvedAtLeast)
        guard starvedNow || starvedAllAlong else { return nil }
        return MachineCondition(outcome: .cpuStarved,
                                evidence: "the machine: its \(threads.count) threads waited \(Format.seconds(waited)) for a CPU and ran "
                                    + "\(Format.seconds(ran)) in a \(Format.seconds(window)) look (\(Format.seconds(total)) of run-queue wait in its "
                                    + "\(Format.seconds(lifetime)))" + (lowClass ? " at the scheduler's lowest class" : "") + ": runnable, passed over",
                                metrics: ["cpu.runqueue_wait_s": Metrics.round(total), "cpu.probe_wait_s": Metrics.round(waited),
                                          "cpu.probe_ran_s": Metrics.round(ran)])
    }

    /// What the harness checks when it kills a child for a stall or at its budget: a thread
    /// limit reached, else threads that were runnable and got no CPU.
    public static func atKill(pid: Int32, threads: [ThreadInfo], lifetime: Seconds) -> MachineCondition? {
        threadLimitReached(pid: pid) ?? starvation(pid: pid, threads: threads, lifetime: lifetime)
    }

    // MARK: Memory

    /// What is known of a child's memory while it runs, to judge its crash.
    public struct MemoryWatch: Sendable {
        /// The child's address-space limit (bytes), or a non-positive value for none/unknown.
        var addressLimit: Int64
        /// The cgroup's memory limit (bytes), or a non-positive value for none/unknown.
        var cgroupLimit: Int64
        /// The cgroup's OOM kills when the child started.
        var oomKillsAtStart: Int64
        /// The child's largest virtual size seen (bytes).
        var peak: Int64 = -1

        public init(pid: Int32) {
            addressLimit = clab_limit_address_space(pid)
            if addressLimit == CLAB_LIMIT_UNKNOWN { addressLimit = clab_limit_address_space(0) }
            cgroupLimit = clab_cgroup_memory_limit()
            oomKillsAtStart = clab_cgroup_oom_kills()
        }

        /// Whether a limit is set that a trial could reach (sampling is skipped otherwise).
        public var limited: Bool { addressLimit > 0 }

        /// Takes the child's peak virtual size (one small read of /proc/PID/status).
        public mutating func sample(pid: Int32) {
            let now = clab_process_vm_peak(pid)
            if now > peak { peak = now }
        }

        /// The out-of-memory verdict on a child that died by a signal it did not get from the
        /// harness, with `stderr` its error output: the cgroup killed a process meanwhile, or
        /// its peak reached within 128 MB (a thread stack or a malloc arena's reservation) or
        /// half of `RLIMIT_AS`, or its last words were an allocation failure.
        public func crashVerdict(signal: Int32?, stderr: String) -> MachineCondition? {
            let kills = clab_cgroup_oom_kills()
            if signal == SIGKILL, oomKillsAtStart >= 0, kills > oomKillsAtStart {
                let limit = cgroupLimit > 0 ? " of \(Format.bytes(cgroupLimit))" : ""
                return MachineCondition(outcome: .outOfMemory,
                                        evidence: "the machine: killed by the kernel's memory controller (the cgroup's memory limit\(limit); oom_kill \(oomKillsAtStart) → \(kills))",
                                        metrics: ["limit.cgroup_oom_kills": Double(kills - oomKillsAtStart)])
            }
            let words = ["Could not allocate memory", "failed to allocate", "out of memory", "Cannot allocate memory", "std::bad_alloc"]
            let saidSo = words.first { stderr.localizedCaseInsensitiveContains($0) }
            let near = addressLimit > 0 && peak > 0 && (peak + (128 << 20) >= addressLimit || peak * 2 >= addressLimit)
            guard near || (saidSo != nil) else { return nil }
            var metrics: Metrics = [:]
            var figures: [String] = []
            if addressLimit > 0 {
                metrics["limit.address_space_bytes"] = Double(addressLimit)
                figures.append("RLIMIT_AS \(Format.bytes(addressLimit))")
            }
            if peak > 0 {
                metrics["memory.vm_peak_bytes"] = Double(peak)
                figures.append("virtual size \(Format.bytes(peak)) at its last look")
            }
            if let saidSo { figures.append("it said '\(saidSo)'") }
            return MachineCondition(outcome: .outOfMemory,
                                    evidence: "the machine: it crashed at its memory limit (" + figures.joined(separator: ", ") + ")",
                                    metrics: metrics)
        }
    }
}

extension Format {
    /// `300 MB`, `1.5 GB`: sizes for evidence lines (decimal units, as `prlimit` takes them).
    static func bytes(_ value: Int64) -> String {
        let v = Double(value)
        if v >= 1e9 { return Format.number((v / 1e8).rounded() / 10) + " GB" }
        if v >= 1e6 { return Format.number((v / 1e5).rounded() / 10) + " MB" }
        return "\(value) bytes"
    }
}

/// The trial's own look at the machine, from inside a child: polled by the thread that
/// reports progress (so it costs no thread of its own, which a thread limit might refuse).
///
/// - Thread limit: when this process has a finite `RLIMIT_NPROC` that a trial could reach
///   (at most `watchedLimit`) and a non-root user, the user's tasks are counted every 100 ms;
///   reaching the limit once marks the trial.
/// - CPU: the reporter's own run-queue wait. It sleeps 20 ms at a time and needs microseconds
///   each time, so it is the trial's same-moment control: when it waited for a CPU at least
///   half the trial's wall time, the machine gave this process too little CPU to judge it by.
public final class MachineWatch: Sendable {
    /// Limits above this are not watched: no trial of the lab comes near them, and counting a
    /// user's tasks every 100 ms would cost every trial for nothing.
    public static let watchedLimit: Int64 = 16384

    /// The share of a trial's wall time its control may wait for a CPU before the trial is
    /// called `cpu-starved`. Measured with `exp-runloop --quick`: beside `stress --cpu 2` at
    /// normal priority the control waited 0.3 % to 28 % of each trial; under `chrt --idle 0`
    /// with the same load, 20 % to 77 %.
    public static let starvedShare = 0.5

    /// The same bar for a process the scheduler serves last (`SCHED_IDLE`, nice 15 or more),
    /// where any sizeable wait is the scheduler passing it over, not the trial's own threads
    /// competing: on an idle machine such a process still waits about nothing.
    public static let lowClassStarvedShare = 0.05

    /// A control wait shorter than this is never starvation, whatever its share of a short
    /// trial: one scheduling hiccup.
    public static let starvedAtLeast: Seconds = 0.02

    private let limit: Int64
    private let uid: Int64
    private let started = MonotonicClock.now()
    private struct State { var lastLook: Seconds = 0; var reached: MachineCondition?; var reporterTID: Int = 0; var waitAtStart: Seconds?; var told = false }
    private let state = Mutex(State())

    public init() {
        limit = clab_limit_nproc(0)
        uid = clab_process_real_uid(0)
    }

    private var watchesThreads: Bool { limit > 0 && limit <= MachineWatch.watchedLimit && uid > 0 }

    /// Called by the reporter thread on every tick.
    public func poll() {
        let now = MonotonicClock.now()
        let tid = Int(clab_current_thread_id())
        let look = state.withLock { s -> Bool in
            if s.waitAtStart == nil || s.reporterTID != tid {
                s.reporterTID = tid
                s.waitAtStart = MachineCheck.runTime(pid: 0, tid: tid)?.waiting
            }
            guard s.reached == nil, watchesThreads, now - s.lastLook >= 0.1 else { return false }
            s.lastLook = now
            return true
        }
        if look, let reached = MachineCheck.threadLimitReached(limit: limit, uid: uid) {
            state.withLock { $0.reached = reached }
        }
        // A failed thread creation is told to the parent at once: the trial may never end
        // on its own (it waits for a thread that does not exist), and the parent then kills it.
        if let failed = MachineCheck.threadCreationFailed(), state.withLock({ s in defer { s.told = true }; return !s.told }) {
            Terminal.writeError("lab: " + failed.evidence + "\n")
        }
    }

    /// The machine's verdict on the trial, `nil` when it did not break it.
    public func verdict() -> MachineCondition? {
        if let failed = MachineCheck.threadCreationFailed() { return failed }
        if let reached = state.withLock({ $0.reached }) { return reached }
        if watchesThreads, let reached = MachineCheck.threadLimitReached(limit: limit, uid: uid) { return reached }
        let bar = clab_low_cpu_class(0) == 1 ? MachineWatch.lowClassStarvedShare : MachineWatch.starvedShare
        guard let (waited, wall) = controlWait(), waited >= max(wall * bar, MachineWatch.starvedAtLeast) else { return nil }
        return MachineCondition(outcome: .cpuStarved,
                                evidence: "the machine: the trial's control thread, which sleeps and needs microseconds, waited "
                                    + "\(Format.seconds(waited)) of the trial's \(Format.seconds(wall)) for a CPU",
                                metrics: ["cpu.control_runqueue_wait_s": Metrics.round(waited)])
    }

    /// The control's run-queue wait over the trial so far, and the trial's wall time.
    func controlWait() -> (waited: Seconds, wall: Seconds)? {
        let (tid, atStart) = state.withLock { ($0.reporterTID, $0.waitAtStart) }
        guard tid != 0, let atStart, let now = MachineCheck.runTime(pid: 0, tid: tid) else { return nil }
        return (now.waiting - atStart, MonotonicClock.now() - started)
    }

    /// `record` as the machine left it: unchanged, or the machine's outcome with the trial's
    /// own outcome and evidence kept in the evidence line. The control's run-queue wait is
    /// recorded either way (`cpu.control_wait_share`, its share of the trial's wall time).
    public func apply(to record: VariantRecord) -> VariantRecord {
        var record = record
        if let (waited, wall) = controlWait(), wall > 0 { record.metrics["cpu.control_wait_share"] = Metrics.round(waited / wall) }
        guard !record.outcome.judgesNothing, let condition = verdict() else { return record }
        return condition.apply(to: record)
    }
}
