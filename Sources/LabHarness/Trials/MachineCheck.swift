import CLabSupport
import Foundation
import Synchronization

extension VariantRecord {
    /// This record, or the machine's (cpu-starved, this record kept in its evidence) when it
    /// declares a deadlock while `threads` (this process's, taken when the trial saw its stall)
    /// were runnable but passed over by the scheduler: a deadlock's threads sleep in their waits.
    public func unlessStarved(threads: [ThreadInfo], lifetime: Seconds) -> VariantRecord {
        guard outcome == .deadlock,
            let starved = MachineCheck.starvation(
                pid: ProcessInfo.processInfo.processIdentifier, threads: threads, lifetime: lifetime)
        else { return self }
        return starved.apply(to: self)
    }
}

/// The machine broke a trial: what it was, the figures that showed it, and one line for reports.
public struct MachineCondition: Sendable, Equatable {
    /// `resource-limited`, `cpu-starved`, `out-of-memory`, `killed-from-outside` or `suspended`.
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
        record.evidence =
            evidence + "; the trial itself ended \(record.outcome)" + (record.evidence.map { ": \($0)" } ?? "")
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
    static func threadLimitReached(limit: Int64, uid: Int64) -> MachineCondition? {
        guard limit > 0, uid > 0 else { return nil }
        let tasks = clab_user_task_count(uid)
        guard tasks >= 0, tasks >= limit else { return nil }
        return threadLimit(limit: limit, uid: uid, tasks: tasks)
    }

    static func threadLimit(limit: Int64, uid: Int64, tasks: Int64) -> MachineCondition {
        MachineCondition(
            outcome: .resourceLimited,
            evidence:
                "the machine: user \(uid) had \(tasks) tasks (threads included) against its RLIMIT_NPROC of \(limit), "
                + "so no thread or process could be created",
            metrics: ["limit.nproc": Double(limit), "limit.user_tasks": Double(tasks)])
    }

    /// The thread limit as seen for process `pid` (its own limit, its real user), or its pids
    /// cgroup's limit.
    static func threadLimitReached(pid: Int32) -> MachineCondition? {
        threadLimitReached(limit: clab_limit_nproc(pid), uid: clab_process_real_uid(pid)) ?? pidsCgroupFull(pid: pid)
    }

    /// The pids cgroup of process `pid` (0: this one) when it is at its `pids.max` (a fork or
    /// a thread was refused, or would be): a limit that binds root too, and that
    /// `RLIMIT_NPROC` knows nothing of. `nil` when it has room or there is no such cgroup.
    static func pidsCgroupFull(pid: Int32) -> MachineCondition? {
        let limit = clab_cgroup_pids_limit(pid)
        let current = clab_cgroup_pids_current(pid)
        guard limit > 0, current >= 0, current >= limit else { return nil }
        return pidsCgroup(limit: limit, current: current, refused: clab_cgroup_pids_refused(pid))
    }

    static func pidsCgroup(limit: Int64, current: Int64, refused: Int64) -> MachineCondition {
        var metrics: Metrics = ["limit.cgroup_pids_max": Double(limit), "limit.cgroup_pids_current": Double(current)]
        if refused >= 0 { metrics["limit.cgroup_pids_refused"] = Double(refused) }
        return MachineCondition(
            outcome: .resourceLimited,
            evidence:
                "the machine: the pids cgroup held \(current) tasks (threads included) against its pids.max of \(limit)"
                + (refused > 0 ? " and refused \(refused) × to create another" : "")
                + ", so no thread or process could be created",
            metrics: metrics)
    }

    /// Which limit refused a thread or process just now, named with its value: the pids
    /// cgroup's `pids.max` when it is full (or has refused a creation while within one task of
    /// it), else the user's `RLIMIT_NPROC`. `couldBeFull` is false only when neither can have
    /// refused a task a moment ago: the pids cgroup is not full, and `RLIMIT_NPROC` is unlimited
    /// or the user's tasks are known and at least a quarter below it.
    static func creationLimitFigures() -> (words: String, metrics: Metrics, couldBeFull: Bool) {
        let pidsLimit = clab_cgroup_pids_limit(0), pidsNow = clab_cgroup_pids_current(0),
            refused = clab_cgroup_pids_refused(0)
        if pidsLimit > 0, pidsNow >= 0, pidsNow + 1 >= pidsLimit || (refused > 0 && pidsNow + 2 >= pidsLimit) {
            return (
                "the pids cgroup's pids.max of \(pidsLimit), \(pidsNow) tasks in it now"
                    + (refused > 0 ? ", \(refused) refused" : ""),
                ["limit.cgroup_pids_max": Double(pidsLimit), "limit.cgroup_pids_current": Double(pidsNow)], true
            )
        }
        let limit = clab_limit_nproc(0)
        let tasks = limit > 0 ? clab_user_task_count(clab_process_real_uid(0)) : -1
        let words =
            limit > 0
            ? "RLIMIT_NPROC \(limit)" + (tasks >= 0 ? ", \(tasks) tasks of this user now" : "")
            : "RLIMIT_NPROC unlimited"
        let wellUnder = limit == CLAB_LIMIT_UNLIMITED || (limit > 0 && tasks >= 0 && tasks * 4 < limit * 3)
        return (words, limit > 0 ? ["limit.nproc": Double(limit)] : [:], !wellUnder)
    }

    /// This process's failed thread creations, when there were any: `pthread_create` answered
    /// `EAGAIN` (counted by the shim, whoever called it).
    ///
    /// `pthread_create` also answers `EAGAIN` when the new thread's stack cannot be mapped. Under
    /// a finite `RLIMIT_AS`, with the pids cgroup not full and the user's tasks well under
    /// `RLIMIT_NPROC`, that is the address space running out: `out-of-memory`, named with the
    /// limit, as a crash at that limit is (seen in `ulimit -v 292969` runs of 100,000 requests,
    /// where a run failed either way: a thread's stack or a `malloc` first).
    static func threadCreationFailed() -> MachineCondition? {
        let failures = clab_thread_create_failures()
        guard failures > 0 else { return nil }
        let (figures, limits, couldBeFull) = creationLimitFigures()
        var metrics: Metrics = ["limit.thread_create_failures": Double(failures)]
        for (name, value) in limits { metrics[name] = value }
        let addressLimit = clab_limit_address_space(0)
        if addressLimit > 0, !couldBeFull {
            let peak = clab_process_vm_peak(0)
            metrics["limit.address_space_bytes"] = Double(addressLimit)
            if peak > 0 { metrics["memory.vm_peak_bytes"] = Double(peak) }
            let size = peak > 0 ? ", virtual size \(Format.bytes(peak)) at its peak" : ""
            return MachineCondition(
                outcome: .outOfMemory,
                evidence:
                    "the machine: pthread_create failed \(failures) × with EAGAIN at its address-space limit "
                    + "(RLIMIT_AS \(Format.bytes(addressLimit))\(size); \(figures)): a new thread's stack did not fit",
                metrics: metrics)
        }
        return MachineCondition(
            outcome: .resourceLimited,
            evidence:
                "the machine: pthread_create failed \(failures) × with EAGAIN (\(figures)): threads the trial asked for were never created",
            metrics: metrics)
    }

    /// A process the harness itself needed could not be started: `fork` answered `EAGAIN`
    /// (or `ENOMEM`) at a process limit, named with its value, or its pipes hit the open-files
    /// limit (`EMFILE`). `nil` for any other error, which is the harness's own failure to report
    /// as such.
    public static func processCreationRefused(_ what: String, error: any Error) -> MachineCondition? {
        guard let code = (error as? POSIXError)?.code else { return nil }
        if code == .EMFILE || code == .ENFILE {
            return openFilesLimit(pid: 0, said: "\(what) could not be started: EMFILE")
        }
        guard code == .EAGAIN || code == .ENOMEM else { return nil }
        let (figures, limits, _) = creationLimitFigures()
        return MachineCondition(
            outcome: .resourceLimited,
            evidence:
                "the machine: \(what) could not be started (fork: \(code == .EAGAIN ? "EAGAIN" : "ENOMEM"); \(figures))",
            metrics: limits)
    }

    /// The line a child writes on stderr when its threads could not be created, which the
    /// parent reads even when it has to kill the child (`fromChildStderr`).
    static let stderrMark = "lab: the machine: "

    /// The machine's condition a child told on stderr, if it did.
    static func fromChildStderr(_ text: String) -> MachineCondition? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(stderrMark) }) else { return nil }
        return MachineCondition(
            outcome: .resourceLimited, evidence: String(line.dropFirst("lab: ".count)), metrics: [:])
    }

    /// The thread limit of a running child, looked at every 100 ms by the parent while it runs
    /// (only when the limit is one a trial could reach: see `MachineWatch.watchedLimit`). A
    /// child that could not create a thread may have no thread left to say so (its progress
    /// reporter is a thread too), and the moment can pass before the harness ends it, so the
    /// parent watches for it.
    struct ThreadLimitWatch: Sendable {
        var limit: Int64
        var uid: Int64
        var lastLook: Seconds = 0
        /// The first look that found the user at its limit.
        private(set) var reached: MachineCondition?

        var pid: Int32
        var pidsLimit: Int64

        init(pid: Int32) {
            self.pid = pid
            limit = clab_limit_nproc(pid)
            uid = clab_process_real_uid(pid)
            pidsLimit = clab_cgroup_pids_limit(pid)
        }

        /// Whether there is a limit worth watching: the user's, or its pids cgroup's.
        var limited: Bool {
            (limit > 0 && limit <= MachineWatch.watchedLimit && uid > 0)
                || (pidsLimit > 0 && pidsLimit <= MachineWatch.watchedLimit)
        }

        mutating func sample(now: Seconds) {
            guard limited, reached == nil, now - lastLook >= 0.1 else { return }
            lastLook = now
            reached = threadLimitReached(limit: limit, uid: uid) ?? (pidsLimit > 0 ? pidsCgroupFull(pid: pid) : nil)
        }
    }

    /// The evidence when `posix_spawn` itself failed with `EAGAIN`.
    static func spawnRefused() -> String {
        "the machine: the child could not be created (posix_spawn: EAGAIN; \(creationLimitFigures().words))"
    }

    /// The evidence when the harness could not open what a trial needs (its pipes) because
    /// this process is at its `RLIMIT_NOFILE`; `nil` when the error was another.
    public static func descriptorsExhausted(errno code: Int32) -> MachineCondition? {
        guard code == EMFILE || code == ENFILE else { return nil }
        return openFilesLimit(pid: 0, said: code == EMFILE ? "EMFILE" : "ENFILE")
    }

    /// The open-files limit of process `pid`, named with its value, when something said it was reached.
    static func openFilesLimit(pid: Int32, said: String) -> MachineCondition {
        let limit = clab_limit_open_files(pid)
        let open = clab_process_open_files(pid)
        var metrics: Metrics = [:]
        if limit > 0 { metrics["limit.nofile"] = Double(limit) }
        if open >= 0 { metrics["limit.open_files"] = Double(open) }
        let figures =
            (limit > 0 ? "RLIMIT_NOFILE \(limit)" : "RLIMIT_NOFILE unknown") + (open >= 0 ? ", \(open) open" : "")
        return MachineCondition(
            outcome: .resourceLimited,
            evidence: "the machine: no file descriptor could be opened (\(said); \(figures))", metrics: metrics)
    }

    /// A child whose error output says it ran out of file descriptors (EMFILE, "Too many open
    /// files") ran into a limit of the machine's, not a bug of the program's.
    public static func descriptorsExhausted(stderr: String, limit: Int64) -> MachineCondition? {
        guard stderr.contains("Too many open files") || stderr.contains("EMFILE") else { return nil }
        var metrics: Metrics = [:]
        if limit > 0 { metrics["limit.nofile"] = Double(limit) }
        return MachineCondition(
            outcome: .resourceLimited,
            evidence: "the machine: it ran out of file descriptors (it said 'Too many open files'; "
                + (limit > 0 ? "RLIMIT_NOFILE \(limit))" : "RLIMIT_NOFILE unlimited)"),
            metrics: metrics)
    }

    // MARK: Signals from outside

    /// The verdict on a child that died by `signal` the harness did not send, with no fatal
    /// message of its own (`fatalLine` nil): a signal no program's own fault raises (SIGKILL,
    /// SIGTERM, SIGHUP, SIGINT, SIGQUIT) came from outside it: an administrator, a CI runner's
    /// time limit, the OOM killer (which `MemoryWatch.crashVerdict` names first, by its
    /// counters). The CPU-time and file-size limits end a process with SIGXCPU and SIGXFSZ.
    /// `nil` for a signal the program may have raised itself (SIGSEGV, SIGILL, SIGABRT, ...).
    public static func signalFromOutside(
        signal: Int32, fatalLine: String?, pid: Int32, cpuLimit: Int64, fileSizeLimit: Int64
    ) -> MachineCondition? {
        let name = ChildProcess.signalName(signal)
        if signal == SIGXCPU {
            return MachineCondition(
                outcome: .resourceLimited,
                evidence: "the machine: killed by \(name) at its CPU-time limit (RLIMIT_CPU "
                    + (cpuLimit > 0 ? "\(cpuLimit) s)" : "unknown)"),
                metrics: cpuLimit > 0 ? ["limit.cpu_s": Double(cpuLimit)] : [:])
        }
        if signal == SIGXFSZ {
            return MachineCondition(
                outcome: .resourceLimited,
                evidence: "the machine: killed by \(name) at its file-size limit (RLIMIT_FSIZE "
                    + (fileSizeLimit >= 0 ? "\(Format.bytes(fileSizeLimit)))" : "unknown)"),
                metrics: fileSizeLimit >= 0 ? ["limit.fsize_bytes": Double(fileSizeLimit)] : [:])
        }
        guard fatalLine == nil, [SIGKILL, SIGTERM, SIGHUP, SIGINT, SIGQUIT].contains(signal) else { return nil }
        return MachineCondition(
            outcome: .killedFromOutside,
            evidence:
                "the machine: killed by \(name) from outside the harness (the harness sent none and the trial said nothing "
                + "fatal; an administrator, a time limit or another process)",
            metrics: ["signal.from_outside": Double(signal)])
    }

    /// A child found stopped (`SIGSTOP`, or a `SIGTSTP` the harness did not send) while it
    /// ran: its clocks kept going while it could not run, so what it measured is the stop's.
    static func stoppedFromOutside(seenAt: Seconds) -> MachineCondition {
        MachineCondition(
            outcome: .suspended,
            evidence: "the machine: the trial was stopped from outside the harness (SIGSTOP or SIGTSTP; seen stopped "
                + "\(Format.seconds(seenAt)) into it), so its timings are the stop's",
            metrics: ["stopped.seen_at_s": Metrics.round(seenAt)])
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

    /// Whether a thread is the harness's own (its samplers, watchdogs, progress reporter: named
    /// `lab.` something), not one whose work a verdict reads. Those wake every few milliseconds,
    /// so on a loaded machine they queue for a CPU whatever the trial's own threads do.
    static func isHarnessThread(_ thread: ThreadInfo) -> Bool { thread.name.hasPrefix("lab.") }

    /// Whether process `pid`'s threads are starved now (`look`, then `starvationVerdict`).
    /// A deadlocked program's threads sleep in their waits (no run-queue time), whatever the
    /// harness's own threads do beside them on a loaded machine; a busy loop on a loaded
    /// machine still gets its share (two thirds of a core beside two `stress` workers on two
    /// cores); only a process the scheduler passes over waits and does not run. `nil` when not
    /// starved or the platform keeps no run-queue time.
    static func starvation(pid: Int32, threads: [ThreadInfo], lifetime: Seconds = 0) -> MachineCondition? {
        look(pid: pid, threads: threads, lifetime: lifetime).flatMap(starvationVerdict)
    }

    /// One look, over `probeWindow`, at the run-queue time of process `pid`'s own threads: not
    /// the harness's samplers and watchers (`isHarnessThread`), nor the thread doing the look.
    /// `nil` when no such thread could be read (none listed, or the platform keeps no
    /// run-queue time).
    static func look(pid: Int32, threads: [ThreadInfo], lifetime: Seconds) -> StarvationLook? {
        let me = pid == ProcessInfo.processInfo.processIdentifier || pid == 0 ? Int(clab_current_thread_id()) : -1
        let subjects = threads.filter { !isHarnessThread($0) && $0.id != me }
        var before: [Int: RunTime] = [:], heldBefore: Set<Int> = []
        for thread in subjects {
            before[thread.id] = runTime(pid: pid, tid: thread.id)
            if clab_thread_uninterruptible(pid, thread.id) == 1 { heldBefore.insert(thread.id) }
        }
        guard !before.isEmpty else { return nil }
        let start = MonotonicClock.now()
        MonotonicClock.sleep(for: probeWindow)
        let window = MonotonicClock.now() - start
        // Threads come and go (a pool); the ones seen at both ends are compared.
        var waited: Seconds = 0, ran: Seconds = 0, total: Seconds = 0, runnable = 0, held = 0, compared = 0
        for (id, first) in before {
            guard let last = runTime(pid: pid, tid: id) else { continue }
            compared += 1
            waited += last.waiting - first.waiting
            ran += last.onCPU - first.onCPU
            total += last.waiting
            // Runnable in the window: it waited for a CPU for a tenth of it or more.
            if last.waiting - first.waiting >= window / 10 {
                runnable += 1
            } else if heldBefore.contains(id), clab_thread_uninterruptible(pid, id) == 1 {
                held += 1
            }
        }
        return StarvationLook(
            threads: threads.count, subjects: compared, harness: threads.count - subjects.count,
            runnable: runnable, heldInKernel: held, cpus: CPUBudget.current.usable, window: window, waited: waited,
            ran: ran, total: total, lifetime: lifetime, lowClass: clab_low_cpu_class(pid) == 1)
    }

    /// What one look at a process's run-queue time found (`starvation`).
    struct StarvationLook: Sendable, CustomStringConvertible {
        /// Threads listed; the trial's own compared at both ends; the harness's left out.
        var threads: Int, subjects: Int, harness: Int
        /// The trial's own threads that waited for a CPU in the window.
        var runnable: Int
        /// The others in an uninterruptible kernel wait at both ends of the window (`D`).
        var heldInKernel = 0
        /// The CPUs the process may use (`CPUBudget`); 0: unknown.
        var cpus = 0
        var window: Seconds, waited: Seconds, ran: Seconds
        /// The trial's own threads' run-queue wait over their lives, and the process's life.
        var total: Seconds, lifetime: Seconds
        var lowClass: Bool

        /// "1 of its 4 trial threads waited 238 ms for a CPU and ran 240 µs in a 300 ms look",
        /// said of a look whatever it found.
        var description: String {
            "\(runnable) of its \(subjects) trial threads waited \(Format.seconds(waited)) for a CPU and ran "
                + "\(Format.seconds(ran)) in a \(Format.seconds(window)) look"
                + (lowClass ? " at the scheduler's lowest class" : "")
        }
    }

    /// The judgement on one look: starved only when the threads the verdict depends on were
    /// runnable and passed over (the trial's own, not the harness's samplers). At normal
    /// priority that is at least half of the trial's threads: a deadlock's or a stall's verdict
    /// rests on the threads seen waiting, and one thread of eight queueing for a CPU beside
    /// seven asleep in their waits (a pool's new worker or a poller, while another trial's busy
    /// loop holds the cores) leaves the deadlock in plain sight. A process the scheduler serves
    /// last (`SCHED_IDLE`, nice 15 or more) is starved as soon as one of its threads is passed
    /// over, for that one may be the one the others wait for; and it is judged on its whole
    /// life too, asleep or not at the look: its threads' run-queue wait over the trial, when
    /// that large, is the budget the scheduler took (the trial that starts seconds late,
    /// reports once and then waits as designed is killed at a budget the machine spent).
    static func starvationVerdict(_ look: StarvationLook) -> MachineCondition? {
        guard look.subjects > 0 else { return nil }
        let share = look.lowClass ? MachineWatch.lowClassStarvedShare : MachineWatch.starvedShare
        // Threads held in an uninterruptible kernel wait beside runnable ones are the machine's
        // too: seen 300 run-loop threads started at once after a stop, 135 of them in `D` for
        // seconds growing the shared file-descriptor table (`expand_files`, which waits for an
        // RCU grace period) while 37 queued for the 2 CPUs; no program wait puts a thread in `D`.
        let passedOver =
            look.runnable > 0 && (look.lowClass || (look.runnable + look.heldInKernel) * 2 >= look.subjects)
        // The CPUs went to the trial's own threads (they spin or queue behind each other): the
        // program's contention, which its own outcome and stacks show.
        let ownUse = look.cpus > 0 && look.ran >= look.window * Double(look.cpus) * MachineWatch.ownUseShare
        let starvedNow =
            passedOver && !ownUse && look.waited >= look.window * share && look.ran < look.waited / 4
        let starvedAllAlong =
            look.lowClass && look.lifetime > 0 && look.total >= max(look.lifetime * share, MachineWatch.starvedAtLeast)
        guard starvedNow || starvedAllAlong else { return nil }
        let leftOut = look.harness > 0 ? "; the harness's own \(look.harness) left out" : ""
        let lifeWords =
            "\(Format.seconds(look.total)) of run-queue wait in its \(Format.seconds(look.lifetime))\(leftOut)"
        let evidence =
            starvedNow
            ? "the machine: \(look.runnable) of its \(look.subjects) trial threads were runnable: they waited "
                + "\(Format.seconds(look.waited)) for a CPU and ran \(Format.seconds(look.ran)) in a \(Format.seconds(look.window)) look "
                + "(\(lifeWords))" + (look.lowClass ? " at the scheduler's lowest class" : "")
                + (look.heldInKernel > 0
                    ? ", and \(look.heldInKernel) more were held in an uninterruptible kernel wait (state D)" : "")
                + ": runnable, passed over"
            : "the machine: at the scheduler's lowest class its \(look.subjects) trial threads had \(lifeWords), "
                + "\(look.runnable) of them runnable at the end: the scheduler spent the trial's time, passing it over"
        return MachineCondition(
            outcome: .cpuStarved, evidence: evidence,
            metrics: [
                "cpu.runqueue_wait_s": Metrics.round(look.total), "cpu.probe_wait_s": Metrics.round(look.waited),
                "cpu.probe_ran_s": Metrics.round(look.ran), "cpu.probe_runnable_threads": Double(look.runnable),
                "cpu.probe_kernel_held_threads": Double(look.heldInKernel),
            ])
    }

    /// What the harness checks when it kills a child for a stall or at its budget: a thread
    /// limit reached, else threads that were runnable and got no CPU.
    /// When the machine is not to blame, `look` says what the look at its threads found, for
    /// the kill's evidence: a reader of a deadlock sees why it was not called starvation.
    static func atKill(
        pid: Int32, threads: [ThreadInfo],
        lifetime: Seconds
    ) -> (condition: MachineCondition?, look: String?) {
        if let reached = threadLimitReached(pid: pid) { return (reached, nil) }
        guard let look = look(pid: pid, threads: threads, lifetime: lifetime) else { return (nil, nil) }
        if let starved = starvationVerdict(look) { return (starved, nil) }
        return (nil, "\(look): not starved")
    }

    // MARK: Memory

    /// What is known of a child's memory while it runs, to judge its crash.
    struct MemoryWatch: Sendable {
        /// The child's address-space limit (bytes), or a non-positive value for none/unknown.
        var addressLimit: Int64
        /// The cgroup's memory limit (bytes), or a non-positive value for none/unknown.
        var cgroupLimit: Int64
        /// The cgroup's OOM kills when the child started.
        var oomKillsAtStart: Int64
        /// The child's largest virtual size seen (bytes).
        var peak: Int64 = -1

        /// Which cgroup version keeps the memory figures (1, 2; 0 none).
        var cgroupVersion: Int32
        /// The cgroup's count of allocations refused at its limit when the child started.
        var failuresAtStart: Int64
        /// The child's CPU-time, file-size and open-files limits, to name a SIGXCPU, a SIGXFSZ or an EMFILE.
        var cpuLimit: Int64, fileSizeLimit: Int64, openFilesLimit: Int64

        /// `oomKillsAtStart`: the cgroup's OOM kill count taken before the child was spawned
        /// (a child killed in its first milliseconds still moves it), else read now.
        init(pid: Int32, oomKillsAtStart: Int64? = nil) {
            addressLimit = clab_limit_address_space(pid)
            if addressLimit == CLAB_LIMIT_UNKNOWN { addressLimit = clab_limit_address_space(0) }
            // The child starts in this process's cgroups.
            cgroupLimit = clab_cgroup_memory_limit(0)
            cgroupVersion = clab_cgroup_memory_version(0)
            self.oomKillsAtStart = oomKillsAtStart ?? clab_cgroup_oom_kills(0)
            failuresAtStart = clab_cgroup_memory_failcnt(0)
            cpuLimit = clab_limit_cpu_seconds(pid)
            if cpuLimit == CLAB_LIMIT_UNKNOWN { cpuLimit = clab_limit_cpu_seconds(0) }
            fileSizeLimit = clab_limit_file_size(pid)
            if fileSizeLimit == CLAB_LIMIT_UNKNOWN { fileSizeLimit = clab_limit_file_size(0) }
            openFilesLimit = clab_limit_open_files(pid)
            if openFilesLimit == CLAB_LIMIT_UNKNOWN { openFilesLimit = clab_limit_open_files(0) }
        }

        /// Whether a limit is set that a trial could reach (sampling is skipped otherwise).
        var limited: Bool { addressLimit > 0 }

        /// Takes the child's peak virtual size (one small read of /proc/PID/status).
        mutating func sample(pid: Int32) {
            let now = clab_process_vm_peak(pid)
            if now > peak { peak = now }
        }

        /// The out-of-memory verdict on a child that died by a signal it did not get from the
        /// harness, with `stderr` its error output: the cgroup killed a process meanwhile, or
        /// its peak reached within 128 MB (a thread stack or a malloc arena's reservation) or
        /// half of `RLIMIT_AS`, or its last words were an allocation failure.
        func crashVerdict(signal: Int32?, stderr: String) -> MachineCondition? {
            let kills = clab_cgroup_oom_kills(0)
            if signal == SIGKILL, oomKillsAtStart >= 0, kills > oomKillsAtStart {
                let file = cgroupVersion == 1 ? "memory.limit_in_bytes" : "memory.max"
                let counter = cgroupVersion == 1 ? "memory.oom_control" : "memory.events"
                let limit = cgroupLimit > 0 ? " \(file) of \(Format.bytes(cgroupLimit))" : " limit"
                let failures = clab_cgroup_memory_failcnt(0)
                let refused =
                    failures > failuresAtStart && failuresAtStart >= 0 && cgroupVersion == 1
                    ? ", memory.failcnt \(failuresAtStart) → \(failures)" : ""
                var metrics: Metrics = ["limit.cgroup_oom_kills": Double(kills - oomKillsAtStart)]
                if cgroupLimit > 0 { metrics["limit.cgroup_memory_bytes"] = Double(cgroupLimit) }
                return MachineCondition(
                    outcome: .outOfMemory,
                    evidence:
                        "the machine: killed by the kernel's OOM killer at its memory cgroup's (v\(cgroupVersion))\(limit) "
                        + "(oom_kill of \(counter) \(oomKillsAtStart) → \(kills)\(refused))",
                    metrics: metrics)
            }
            let words = [
                "Could not allocate memory", "failed to allocate", "out of memory", "Cannot allocate memory",
                "std::bad_alloc",
            ]
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
            return MachineCondition(
                outcome: .outOfMemory,
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
final class MachineWatch: Sendable {
    /// Limits above this are not watched: no trial of the lab comes near them, and counting a
    /// user's tasks every 100 ms would cost every trial for nothing.
    static let watchedLimit: Int64 = 16384

    /// The share of a trial's wall time its control may wait for a CPU before the trial is
    /// called `cpu-starved`. Measured with `exp-runloop --quick`: beside `stress --cpu 2` at
    /// normal priority the control waited 0.3 % to 28 % of each trial; under `chrt --idle 0`
    /// with the same load, 20 % to 77 %.
    static let starvedShare = 0.5

    /// The same bar for a process the scheduler serves last (`SCHED_IDLE`, nice 15 or more),
    /// where any sizeable wait is the scheduler passing it over, not the trial's own threads
    /// competing: on an idle machine such a process still waits about nothing.
    static let lowClassStarvedShare = 0.05

    /// A control wait shorter than this is never starvation, whatever its share of a short
    /// trial: one scheduling hiccup.
    static let starvedAtLeast: Seconds = 0.02

    /// A look in which the trial's own threads ran this share of the CPUs the process may use
    /// (or more) found them competing with each other, not passed over by the machine: the CPU
    /// went to the trial. Seen with `exp-runloop --variant dedicated-thread --caller async --tasks
    /// 300` stopped for 70 ms while it made its threads: 259 of them then spun on Foundation's
    /// run-loop table lock (`_CFRunLoopGet0`'s `loopsLock`, a `sleep(0)` spin lock on Linux)
    /// and ran 647 ms in a 301 ms look on 2 CPUs, which the old rule called `cpu-starved`.
    /// Three quarters, not half: beside `stress --cpu 2` two busy trial threads get about one
    /// of the two CPUs, and that trial is still passed over by the machine.
    static let ownUseShare = 0.75

    private let limit: Int64
    private let uid: Int64
    private let started = MonotonicClock.now(), cpuAtStart = CPUTime.process()
    private let throttledAtStart = clab_cgroup_cpu_throttled_ns(0)
    private struct State {
        var lastLook: Seconds = 0; var reached: MachineCondition?; var reporterTID: Int = 0; var waitAtStart: Seconds?;
        var told = false
    }
    private let state = Mutex(State())

    init() {
        limit = clab_limit_nproc(0)
        uid = clab_process_real_uid(0)
    }

    private var watchesThreads: Bool { limit > 0 && limit <= MachineWatch.watchedLimit && uid > 0 }

    /// Called by the reporter thread on every tick.
    func poll() {
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
        if let failed = MachineCheck.threadCreationFailed(),
            state.withLock({ s in
                defer { s.told = true }; return !s.told
            })
        {
            Terminal.writeError("lab: " + failed.evidence + "\n")
        }
    }

    /// The machine's verdict on the trial, `nil` when it did not break it.
    func verdict() -> MachineCondition? {
        if let failed = MachineCheck.threadCreationFailed() { return failed }
        if let reached = state.withLock({ $0.reached }) { return reached }
        if watchesThreads, let reached = MachineCheck.threadLimitReached(limit: limit, uid: uid) { return reached }
        let bar = clab_low_cpu_class(0) == 1 ? MachineWatch.lowClassStarvedShare : MachineWatch.starvedShare
        guard let (waited, wall) = controlWait(), waited >= max(wall * bar, MachineWatch.starvedAtLeast) else {
            return nil
        }
        // The control queued behind the trial's own threads (the process had the CPUs): the
        // program's contention, not the machine's.
        let cpus = Double(CPUBudget.current.usable)
        guard CPUTime.process() - cpuAtStart < wall * cpus * MachineWatch.ownUseShare else { return nil }
        var metrics: Metrics = ["cpu.control_runqueue_wait_s": Metrics.round(waited)]
        return MachineCondition(
            outcome: .cpuStarved,
            evidence: "the machine: the trial's control thread, which sleeps and needs microseconds, waited "
                + "\(Format.seconds(waited)) of the trial's \(Format.seconds(wall)) for a CPU"
                + quotaWords(metrics: &metrics),
            metrics: metrics)
    }

    /// A trial that failed for want of a file descriptor: its evidence says "Too many open
    /// files" (EMFILE) and this process has an open-files limit. The limit is named.
    func openFilesVerdict(_ record: VariantRecord) -> MachineCondition? {
        guard record.outcome == .failed || record.outcome == .crashed, let evidence = record.evidence,
            evidence.contains("Too many open files") || evidence.contains("EMFILE")
        else { return nil }
        return MachineCheck.openFilesLimit(pid: 0, said: "Too many open files")
    }

    /// "; its cgroup's CPU quota (0.1 CPUs) held it off the CPU 1.2 s of that" when the quota
    /// throttled this process's cgroup while the trial ran, else "".
    func quotaWords(metrics: inout Metrics) -> String {
        let now = clab_cgroup_cpu_throttled_ns(0)
        guard throttledAtStart >= 0, now > throttledAtStart else { return "" }
        let held = Double(now - throttledAtStart) / 1e9
        metrics["cpu.cgroup_throttled_s"] = Metrics.round(held)
        let quota = CPUBudget.current.quota.map { " (\(Format.number(($0 * 100).rounded() / 100)) CPUs)" } ?? ""
        return "; its cgroup's CPU quota\(quota) throttled it \(Format.seconds(held)) meanwhile"
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
    func apply(to record: VariantRecord) -> VariantRecord {
        var record = record
        if let (waited, wall) = controlWait(), wall > 0 {
            record.metrics["cpu.control_wait_share"] = Metrics.round(waited / wall)
        }
        guard !record.outcome.judgesNothing else { return record }
        if let fds = openFilesVerdict(record) { return fds.apply(to: record) }
        guard let condition = verdict() else { return record }
        // A deadlock or a stall is a verdict on threads that wait: when the control queued for a
        // CPU, the trial's own threads are looked at before the machine takes the blame. If
        // they sleep in their waits (not runnable), the harness's samplers queued beside a real
        // deadlock (two builds on two cores do that), and the trial is judged on what it showed.
        if condition.outcome == .cpuStarved, record.outcome == .deadlock || record.outcome == .stalled {
            let threads = ThreadCensus.threads(pid: ProcessInfo.processInfo.processIdentifier)
            guard
                let starved = MachineCheck.starvation(
                    pid: ProcessInfo.processInfo.processIdentifier, threads: threads,
                    lifetime: MonotonicClock.now() - started)
            else {
                var record = record
                record.metrics["cpu.control_starved_threads_asleep"] = 1
                return record
            }
            return starved.apply(to: record)
        }
        return condition.apply(to: record)
    }
}
