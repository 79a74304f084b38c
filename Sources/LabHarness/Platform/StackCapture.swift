import CLabSupport
import Foundation
import Synchronization

/// Takes a `StackSnapshot` of a live process: of a child that is about to be killed, or of
/// this process when a watchdog declares a stall.
///
/// Linux: each thread is sent `SIGPROF` with `tgkill`; the handler every lab binary installs
/// at load (`clab_stacks_install`, in CLabSupport) unwinds that thread with the C library's
/// `backtrace` and appends its return addresses to `/tmp/lab-stacks-PID`, which only the one
/// asking creates. The addresses are then named with `/proc/PID/maps` and `addr2line` (see
/// `StackSymbolizer`). Thread states are read before the signals wake anything.
/// Elsewhere (Darwin) there are no stacks, and the snapshot says why in its note
/// (`unavailableReason`, from the C shim); threads and their states are still listed.
public enum StackCapture {
    /// Seconds the threads get to answer; a thread that blocks SIGPROF never does.
    public static let answerBudget: Seconds = 0.8
    /// Seconds naming the frames may take.
    public static let symbolBudget: Seconds = 1.0

    /// The raw stacks of process `pid`, which must still be alive (and not yet killed): the
    /// part that needs the process. Naming the frames (`RawStacks.named()`) can wait until
    /// after it is gone.
    public static func captureRaw(pid: Int32) -> RawStacks {
        if let reason = unavailableReason { return RawStacks(threads: ThreadCensus.threads(pid: pid), note: reason) }
        return signalledCapture(pid: pid, skipping: nil)
    }

    /// A named snapshot of process `pid`.
    public static func capture(pid: Int32, symbolizer: StackSymbolizer = StackSymbolizer()) -> StackSnapshot {
        captureRaw(pid: pid).named(symbolizer: symbolizer)
    }

    /// A named snapshot of this process's threads, except the calling one.
    public static func captureOwn(symbolizer: StackSymbolizer = StackSymbolizer()) -> StackSnapshot {
        if let reason = unavailableReason {
            return RawStacks(threads: ThreadCensus.threads(), note: reason).named(symbolizer: symbolizer)
        }
        guard clab_stacks_install() == 0 else { return .unavailable("cannot install the SIGPROF handler") }
        return signalledCapture(pid: getpid(), skipping: Int(clab_current_thread_id())).named(symbolizer: symbolizer)
    }

    /// `nil` where this platform takes stack snapshots (Linux); elsewhere the one line that
    /// says why not ("stacks unavailable on this platform: ..."), for reports and for tests
    /// that need stacks and skip without them.
    public static var unavailableReason: String? {
        clab_stacks_unavailable_reason().map { String(cString: $0) }
    }

    /// One capture at a time in this process. Two side by side (a watchdog's and a hang
    /// watch's, in tests that run in parallel) shared `/tmp/lab-stacks-PID`: the second made the
    /// file anew and the first removed it when done, so the second's answers, which the handler
    /// appends only to a file that exists, were lost ("no thread answered within 800 ms").
    private static let oneAtATime = Mutex(())

    private static func signalledCapture(pid: Int32, skipping me: Int?) -> RawStacks {
        oneAtATime.withLock { _ in signalledCaptureAlone(pid: pid, skipping: me) }
    }

    private static func signalledCaptureAlone(pid: Int32, skipping me: Int?) -> RawStacks {
        let start = MonotonicClock.now()
        let threads = ThreadCensus.threads(pid: pid).filter { $0.id != me }
        func raw(
            _ note: String?, _ answers: [Int: [UInt]] = [:], _ maps: ProcessMaps = ProcessMaps(mappings: [])
        ) -> RawStacks {
            RawStacks(threads: threads, answers: answers, maps: maps, note: note, seconds: MonotonicClock.now() - start)
        }
        guard !threads.isEmpty else { return raw("stacks unavailable: the process was already gone") }
        guard catchesStackSignal(pid: pid) else {
            return raw("stacks unavailable: the process does not answer stack requests (no SIGPROF handler)")
        }
        let path = "/tmp/lab-stacks-\(pid)"
        unlink(path)
        let fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return raw("stacks unavailable: cannot create \(path)") }
        close(fd)
        defer { unlink(path) }

        let signal = clab_stacks_signal()
        var asked = 0
        var refused = 0
        for thread in threads {
            if clab_tgkill(pid, Int32(thread.id), signal) == 0 { asked += 1 } else if errno == EPERM { refused += 1 }
        }
        // Another user's process: waiting for answers that cannot come would only cost the budget.
        if asked == 0 && refused > 0 {
            return raw("stacks unavailable: not permitted to signal process \(pid) (it belongs to another user)")
        }
        var answers: [Int: [UInt]] = [:]
        let deadline = start + answerBudget
        while true {
            answers = readAnswers(path)
            if answers.count >= asked || MonotonicClock.now() >= deadline { break }
            MonotonicClock.sleep(for: 0.005)
        }
        let maps = ProcessMaps.read(pid: pid)
        let silent = threads.count - answers.count
        if answers.isEmpty {
            return raw("stacks unavailable: no thread answered within \(Format.seconds(answerBudget))")
        }
        return raw(
            silent > 0 ? "stacks: \(silent) of \(threads.count) threads did not answer (SIGPROF blocked)" : nil,
            answers, maps)
    }

    /// Whether `SigCgt` in `/proc/PID/status` has the stack signal's bit: sending SIGPROF to a
    /// process without the handler would kill it.
    private static func catchesStackSignal(pid: Int32) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
            let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16)
        else { return false }
        return mask & (UInt64(1) << UInt64(clab_stacks_signal() - 1)) != 0
    }

    /// `tid n addr...` lines; a line still being written (no newline yet) is left for later.
    private static func readAnswers(_ path: String) -> [Int: [UInt]] {
        guard let data = FileManager.default.contents(atPath: path) else { return [:] }
        var answers: [Int: [UInt]] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true) {
            let fields = line.split(separator: " ")
            guard fields.count >= 2, let tid = Int(fields[0]), let n = Int(fields[1]), fields.count == n + 2 else {
                continue
            }
            answers[tid] = fields.dropFirst(2).compactMap { UInt($0.dropFirst(2), radix: 16) }
        }
        return answers
    }
}
