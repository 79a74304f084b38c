import CLabSupport
import Foundation
import LabHarness

/// One run of the watched command: started below a `WatchKeeper`, its output passed through
/// as it comes (whole reads, written whole: no flush per line), its test lines read when it is
/// `swift test`, and its tree looked at only when a limit is passed.
struct WatchRound {
    /// How the round ended.
    struct End {
        /// The keeper's exit status (the command's, 128 + signal when a signal ended it).
        var status: Int32?
        /// The tests found hung, with where each was stuck.
        var hung: [HungTest] = []
        /// Late tests not called hung: their process had ended, or showed no frame of the test
        /// (`WatchReport.hang`); they run again, or in `--parallel` get their verdict in this round.
        var retried: [String] = []
        /// Set when the command went quiet (no output, no CPU) for the quiet timeout.
        var quiet = false
        /// The XCTest class (or Swift Testing suite) `swift test` went quiet in, with no test
        /// of it running.
        var stuckClass: StuckClass?
        var interrupted = false
        /// Whether a hang ended the tree or a test's process.
        var endedForHang = false
        /// Whether `lab watch` ended the tree or a test's process (hang, quiet, interrupt): the
        /// command's status is then not its own.
        var endedByWatch: Bool { endedForHang || quiet || interrupted }
    }

    struct HungTest {
        var key: String
        var seconds: Seconds
        /// The first line of the test's own stacks (`1 thread (main thread): in ... ← ...`).
        var stuckAt: String
    }

    /// An XCTest class whose suite went quiet with none of its tests running: its `class func
    /// setUp()` or `tearDown()` did not return (no test's clock runs there, so no
    /// `--test-timeout` can find it).
    ///
    /// Or a Swift Testing suite (`swiftTesting`, `name` its id) that went quiet with none of its
    /// tests started: a scope of one of its traits did not return.
    struct StuckClass {
        var name: String
        var swiftTesting = false
        /// How long it was quiet: the quiet timeout.
        var seconds: Seconds
        /// `setUp()` or `tearDown()` when a stack of the test process shows the class's own;
        /// `nil` when none does (stacks not taken, or another thread holds it).
        var method: String?
        /// The first line of that stack, else of the test process's first group.
        var stuckAt: String
        /// The tests of it that had started (`TestProgress.openClassTests`).
        var started: [String] = []

        /// What held the class: `none of its tests running, held in its class setUp()`.
        var held: String {
            if swiftTesting { return "none of its tests running, held by a scope of its suite traits" }
            return "none of its tests running, held in its class "
                + (method ?? "setUp() or tearDown() (what XCTest runs there; no stack showed which)")
        }

        /// `XCTest class OrderTests`, `Swift Testing suite Module.HeldSuite`.
        var title: String { (swiftTesting ? "Swift Testing suite " : "XCTest class ") + name }
    }

    var command: [String]
    var environment: [String: String]
    var options: WatchOptions
    /// Whether test lines are read (the command is `swift test`).
    var readsTests: Bool
    var parallel: Bool
    var interrupt: InterruptHandler
    var keeper: String
    /// Why the watched processes cannot answer requests for stacks, when known beforehand.
    var stackNote: String?
    /// The test list, for `swift test`: taken once, by the first round that needs it.
    var lister: WatchCommand.TestLister?
    /// Where Swift Testing writes its event stream, and the options that ask for it there
    /// (added to the command); `nil`: its tests are read from their output lines.
    var eventStream: (path: String, options: [String])?

    /// Seconds between looks at the tree's CPU use while the output is quiet.
    static let quietSample: Seconds = 1
    /// A poll late by this much is a pause of the machine's, which the clocks skip.
    static let pauseSkipped: Seconds = 1
    /// A quiet tree whose processes used less CPU than this share of a sample's interval made
    /// no progress.
    static let idleShare = 0.02

    func run(_ progress: inout TestProgress) throws -> End {
        var end = End()
        let out = try WatchRound.pipe(), err = try WatchRound.pipe()
        var keeperEnvironment = environment
        keeperEnvironment[WatchKeeper.parentVariable] = String(getpid())
        var events = eventStream.map { EventStreamReader(path: $0.path) }
        if let eventStream { try? FileManager.default.removeItem(atPath: eventStream.path) }
        defer {
            events?.finish()
            if let eventStream { try? FileManager.default.removeItem(atPath: eventStream.path) }
        }
        let keeperPid: Int32
        do {
            keeperPid = try WatchSpawn.spawn(
                [keeper, "watch-keeper", "--"] + command + (eventStream?.options ?? []), environment: keeperEnvironment,
                stdout: out.write, stderr: err.write)
        } catch {
            [out.read, out.write, err.read, err.write].forEach { close($0) }
            throw error
        }
        close(out.write)
        close(err.write)

        var lines = [out.read: LineSplitter(), err.read: LineSplitter()]
        var open = [out.read, err.read]
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var lastActivity = MonotonicClock.now()
        var lastOutput = lastActivity
        var cpu: [Int32: Seconds] = [:]
        var lastSample = lastActivity
        var lastScan = lastActivity
        var drainUntil: Seconds?

        while !open.isEmpty {
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let polled = MonotonicClock.now()
            let ready = poll(&fds, nfds_t(fds.count), 100)
            if ready < 0 && errno != EINTR { break }
            var now = MonotonicClock.now()
            // A poll of 100 ms that took seconds: this process did not run meanwhile (the machine
            // slept, or was paused or starved), nor, most likely, did the tests. That time is the
            // machine's: the tests' clocks and the quiet clock skip it (a Mac's clock counts sleep).
            let paused = now - polled - 0.1
            if paused >= WatchRound.pauseSkipped {
                progress.skip(paused)
                (lastOutput, lastActivity) = (lastOutput + paused, lastActivity + paused)
                (cpu, lastSample) = (WatchRound.cpuUse(below: keeperPid), now)
                Terminal.writeError(
                    "lab watch: this process did not run for \(Format.seconds(paused)) (the machine slept, was paused "
                        + "or stalled): the tests' clocks skip that time\n")
            }
            for entry in fds where entry.revents != 0 {
                let n = buffer.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                if n > 0 {
                    buffer.withUnsafeBytes { bytes in
                        let chunk = UnsafeRawBufferPointer(rebasing: bytes[0..<n])
                        (entry.fd == out.read ? Output.standardOutput : Output.standardError).write(bytes: chunk)
                        if readsTests { lines[entry.fd]!.split(chunk) { progress.read($0, at: now) } }
                    }
                    lastOutput = now
                    lastActivity = now
                } else if n == 0 || (errno != EINTR && errno != EAGAIN) {
                    open.removeAll { $0 == entry.fd }
                }
            }
            events?.drain { progress.readEvent($0, at: now) }
            now = MonotonicClock.now()
            if let drainUntil {
                if now >= drainUntil { break }
                continue
            }
            if interrupt.fired {
                end.interrupted = true
                ProcessTree.end(below: keeperPid)
                drainUntil = now + 1
                continue
            }
            if readsTests && parallel && now - lastScan >= 0.5 {
                lastScan = now
                progress.running(WatchRound.parallelTests(below: keeperPid), at: now)
            }
            if readsTests {
                let late = progress.running.filter { now - $0.value >= options.testTimeout }
                if !late.isEmpty {
                    let hang = WatchReport.hang(
                        late.keys.sorted(), since: late, below: keeperPid, options: options, note: stackNote,
                        parallel: parallel, lister: lister, progress: &progress)
                    end.hung += hang.hung
                    end.retried += hang.retried
                    end.endedForHang = end.endedForHang || hang.treeEnded || !hang.hung.isEmpty
                    if hang.treeEnded { drainUntil = MonotonicClock.now() + 1 }
                    continue
                }
                if !progress.running.isEmpty { lastActivity = max(lastActivity, now - WatchRound.quietSample) }
            }
            // Quiet: no output for a while; then the tree's CPU use decides whether it is stuck.
            if now - lastOutput >= WatchRound.quietSample && now - lastSample >= WatchRound.quietSample
                && (!readsTests || progress.running.isEmpty)
            {
                let sample = WatchRound.cpuUse(below: keeperPid)
                var used = 0.0
                for (pid, seconds) in sample { used += max(0, seconds - (cpu[pid] ?? 0)) }
                if used >= WatchRound.idleShare * (now - lastSample) { lastActivity = now }
                cpu = sample
                lastSample = now
            }
            if now - lastActivity >= options.quietTimeout {
                end.quiet = true
                // `--parallel` prints a test process's output only once it ended, suite lines too.
                let inClass = readsTests && !parallel ? progress.openClass : nil
                let inSuite = readsTests && inClass == nil ? progress.heldSwiftTestingSuite : nil
                end.stuckClass = WatchReport.quiet(
                    below: keeperPid, options: options, note: stackNote, in: inClass, inSuite: inSuite)
                end.stuckClass?.started = progress.openClassTests
                if readsTests { progress.treeEnded() }
                drainUntil = MonotonicClock.now() + 1
            }
        }
        if let last = lines[out.read]?.rest, readsTests, !last.isEmpty {
            progress.read(Substring(decoding: last, as: UTF8.self), at: MonotonicClock.now())
        }
        events?.drain { progress.readEvent($0, at: MonotonicClock.now()) }
        close(out.read)
        close(err.read)
        end.status = WatchRound.reapKeeper(keeperPid)
        return end
    }

    /// The keeper's status once it has ended the command's tree and exited; within 5 s, or it is
    /// killed with whatever is still below it.
    static func reapKeeper(_ pid: Int32) -> Int32? {
        let deadline = MonotonicClock.now() + 5
        while true {
            var raw: Int32 = 0
            let reaped = waitpid(pid, &raw, WNOHANG)
            if reaped == pid { return (raw & 0x7f) == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f) }
            if reaped < 0 && errno != EINTR { return nil }
            if MonotonicClock.now() >= deadline {
                ProcessTree.end(below: pid)
                _ = kill(pid, SIGKILL)
                _ = waitpid(pid, &raw, 0)
                return nil
            }
            MonotonicClock.sleep(for: 0.005)
        }
    }

    /// CPU seconds of every process below `root`, by pid: each one's own and its reaped
    /// children's, and `root`'s reaped children's (the keeper reaps the orphans of the tree).
    /// A command whose work runs in short-lived children (`while :; do awk …; done`) shows little
    /// of it in the processes alive at a look: counted from those alone, it was called stuck
    /// (`no output and no CPU use`, exit 124) while it worked.
    static func cpuUse(below root: Int32) -> [Int32: Seconds] {
        var result: [Int32: Seconds] = [:]
        for process in ProcessTree.descendants(of: root) {
            result[process.pid] = HostPlatform.cpuTimes(of: process.pid).map { $0.own + $0.children }
        }
        result[root] = HostPlatform.cpuTimes(of: root)?.children
        return result
    }

    /// `--parallel`: the tests running now, one per test process (`Package.xctest Module.Class/test`).
    static func parallelTests(below root: Int32) -> [String] {
        ProcessTree.descendants(of: root).compactMap(parallelTest(of:))
    }

    /// The test a `--parallel` test process runs, by its command line; `nil` for any other.
    static func parallelTest(of process: ProcessTable.Entry) -> String? {
        parallelTest(commandLine: process.commandLine)
    }

    /// SwiftPM starts each test of a `--parallel` run as `BUNDLE.xctest Module.Class/test` on
    /// Linux (`P-test-runner Module.Class/test` with the swiftbuild build system:
    /// `TestBundleLocation.isTestBinary`) and as `xctest -XCTest Module.Class/test BUNDLE.xctest`
    /// on macOS (`TestRunner.args(forTestAt:)`, swift-package-manager's `SwiftTestCommand.swift`);
    /// the table joins the arguments with spaces, and a path may hold spaces of its own.
    static func parallelTest(commandLine: String) -> String? {
        let words = commandLine.split(separator: " ", omittingEmptySubsequences: false)
        func single(_ word: Substring) -> Bool { word.contains("/") && !word.contains(",") && !word.hasPrefix("-") }
        // An absolute path, spaces and all, that is no option: `/bin/sh -c x.xctest A/b` is not one.
        func path(_ part: ArraySlice<Substring>, endingWith suffix: String) -> Bool {
            path(part) { $0.hasSuffix(suffix) }
        }
        func path(_ part: ArraySlice<Substring>, _ accepts: (String) -> Bool) -> Bool {
            part.first?.hasPrefix("/") == true && !part.contains { $0.hasPrefix("-") }
                && accepts(part.joined(separator: " "))
        }
        if let flag = words.firstIndex(of: "-XCTest"), flag + 2 < words.count {
            guard path(words[..<flag], endingWith: "/xctest"), single(words[flag + 1]),
                path(words[(flag + 2)...], endingWith: ".xctest")
            else { return nil }
            return TestList.key(of: String(words[flag + 1]))
        }
        guard let last = words.last, single(last), path(words.dropLast(), TestBundleLocation.isTestBinary) else {
            return nil
        }
        return TestList.key(of: String(last))
    }

    static func pipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard clab_pipe_cloexec(&fds) == 0 else {
            throw WatchSpawn.Failure(description: "cannot create a pipe: \(String(cString: strerror(errno)))")
        }
        return (fds[0], fds[1])
    }
}

/// Swift Testing's event stream, read as it is written: the file is opened once it exists
/// (Swift Testing creates it as its run starts), and each whole line is handed over.
struct EventStreamReader {
    let path: String
    private var fd: Int32 = -1
    private var rest: [UInt8] = []
    /// Allocated once the file is open: `drain` runs on every pass of the round's loop.
    private var buffer: [UInt8] = []

    init(path: String) { self.path = path }

    /// Hands over the lines written since the last call.
    mutating func drain(_ line: (Substring) -> Void) {
        if fd < 0 { fd = open(path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { return }
        if buffer.isEmpty { buffer = [UInt8](repeating: 0, count: 1 << 16) }
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            rest.append(contentsOf: buffer[0..<n])
        }
        var start = rest.startIndex
        while let newline = rest[start...].firstIndex(of: 10) {
            line(Substring(decoding: rest[start..<newline], as: UTF8.self))
            start = newline + 1
        }
        rest.removeSubrange(..<start)
    }

    mutating func finish() {
        if fd >= 0 { close(fd) }
        fd = -1
    }
}

/// Cuts a stream into lines, handing over only those that may be test lines (they start with
/// `T`, `[`, `e` or a symbol of Swift Testing's, whose UTF-8 starts with 0xE2) or frames of a
/// crash report (spaces, then a digit), so that the rest of the output is never decoded. A line
/// longer than `limit` is cut there, and its last `tailLimit` bytes are kept for a verdict glued
/// at its end.
///
/// An XCTest line can also arrive glued to the end of other output: `swift test` sends the test
/// process's stdout and stderr down one pipe, and a crash's backtracer writes `*** Signal 4:
/// Backtracing from 0x...` with no newline while the buffered verdicts of the tests before the
/// crash are flushed. Dropping such a line lost a passed test's verdict, and the crash was then
/// pinned on it too; so a line that does not start like a test line is searched for the last
/// `Test Case '` in it, and is handed over from there.
public struct LineSplitter {
    /// The line's first bytes, at most `limit`.
    private(set) var rest: [UInt8] = []
    /// The line's last `tailLimit` bytes: in a line longer than `limit`, a verdict glued after
    /// more than `limit` bytes of unended output (a progress bar's `\r`s) is read there.
    private var tail: [UInt8] = []
    private var overflowed = false
    static let limit = 4096
    static let tailLimit = 1024
    private static let xctestMark = Array("Test Case '".utf8)

    public init() {}

    public mutating func split(_ chunk: UnsafeRawBufferPointer, _ line: (Substring) -> Void) {
        var start = 0
        let bytes = chunk.bindMemory(to: UInt8.self)
        while let newline = bytes[start...].firstIndex(of: 10) {
            if rest.isEmpty && newline - start <= LineSplitter.limit {
                let whole = UnsafeBufferPointer(rebasing: bytes[start..<newline])
                LineSplitter.testLine(in: whole).map { line(Substring(decoding: $0, as: UTF8.self)) }
            } else {
                keep(UnsafeBufferPointer(rebasing: bytes[start..<newline]))
                let glued = overflowed ? tailTestLine() : nil
                if let glued {
                    glued.withUnsafeBufferPointer { line(Substring(decoding: $0, as: UTF8.self)) }
                } else {
                    rest.withUnsafeBufferPointer { whole in
                        LineSplitter.testLine(in: whole).map { line(Substring(decoding: $0, as: UTF8.self)) }
                    }
                }
                rest.removeAll(keepingCapacity: true)
                tail.removeAll(keepingCapacity: true)
                overflowed = false
            }
            start = newline + 1
        }
        if start < bytes.count { keep(UnsafeBufferPointer(rebasing: bytes[start...])) }
    }

    /// The test line glued at the end of an over-long line, from its `tail`.
    private func tailTestLine() -> [UInt8]? {
        tail.withUnsafeBufferPointer { LineSplitter.gluedTestLine(in: $0).map(Array.init) }
    }

    /// Adds part of the line: to `rest` up to `limit`, and to the rolling `tail`.
    private mutating func keep(_ part: UnsafeBufferPointer<UInt8>) {
        let room = max(0, LineSplitter.limit - rest.count)
        rest.append(contentsOf: part.prefix(room))
        if part.count > room { overflowed = true }
        tail.append(contentsOf: part.suffix(LineSplitter.tailLimit))
        if tail.count > LineSplitter.tailLimit { tail.removeFirst(tail.count - LineSplitter.tailLimit) }
    }

    /// The part of `bytes` from the last `Test Case '` in it (a line's, or an over-long line's
    /// tail); `nil` for none.
    static func gluedTestLine(in bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        let mark = xctestMark
        var at = bytes.count - mark.count
        while at >= 0 {
            if bytes[at] == mark[0], bytes[at..<at + mark.count].elementsEqual(mark) {
                return UnsafeBufferPointer(rebasing: bytes[at...])
            }
            at -= 1
        }
        return nil
    }

    /// The part of a line that may be a test line: all of it when it starts like one, else the
    /// part from the last `Test Case '` in it; `nil` for neither.
    static func testLine(in line: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        guard let first = line.first else { return nil }
        if interesting(first) { return line }
        // A frame of a crash report: `  2 [ra] 0x… Suite.test() + 64 in …`.
        if first == UInt8(ascii: " "), let text = line.firstIndex(where: { $0 != UInt8(ascii: " ") }),
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(line[text])
        {
            return line
        }
        return gluedTestLine(in: line)
    }

    static func interesting(_ first: UInt8) -> Bool {
        first == UInt8(ascii: "T") || first == UInt8(ascii: "[") || first == UInt8(ascii: "e") || first == 0xE2
    }
}
