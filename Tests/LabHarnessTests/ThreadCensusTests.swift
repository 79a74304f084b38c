import Foundation
import CLabSupport
@testable import LabHarness
import Synchronization
import XCTest

final class ThreadCensusTests: XCTestCase {
    /// The known truth: a child process that parks exactly K extra threads reports K more than
    /// one that parks none. Counted in clean child processes, where nothing else starts threads.
    func testParkingKThreadsRaisesTheCountByK() throws {
        func threads(parking k: Int) throws -> Int {
            let run = try runFixture(["park", String(k)])
            XCTAssertEqual(run.outcome, .completed, run.stderr)
            let line = run.stdout.split(separator: "\n").first { $0.hasPrefix("threads ") } ?? ""
            return Int(line.dropFirst("threads ".count)) ?? -1
        }
        let none = try threads(parking: 0)
        XCTAssertGreaterThan(none, 0)
        for k in [1, 5, 20] {
            XCTAssertEqual(try threads(parking: k) - none, k, "parking \(k) threads")
        }
    }

    /// In this (busy) process, parked threads show up by name and, once they reach their
    /// semaphore, in the sleeping state.
    func testParkedThreadsAppearByNameAsSleeping() {
        let parked = ParkedThreads(4, name: "census.parked")
        let mine = { ThreadCensus.threads().filter { $0.name == "census.parked" } }
        XCTAssertEqual(mine().count, 4)
        // Thread states are read from /proc on Linux; Darwin's census gives Mach run states.
        if PlatformInfo.current.isLinux {
            XCTAssertTrue(
                eventually { Set(mine().compactMap(\.state)) == [.sleeping] }, "states: \(mine().map(\.state))")
        }
        parked.release()
        XCTAssertEqual(mine().count, 0)
    }

    /// Foundation on Linux does not pass a name set before `start()` to the kernel; the lab's
    /// `NamedThread` names the thread itself, which does.
    func testANameSetBeforeStartIsNotSeenButNamedThreadIs() throws {
        try XCTSkipUnless(
            PlatformInfo.current.isLinux,
            "Foundation's naming of threads is measured on swift-corelibs-foundation (Linux)")
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let plain = Thread {
            started.signal(); gate.wait()
        }
        plain.name = "census.before"
        plain.start()
        started.wait()
        let parked = ParkedThreads(1, name: "census.inside")
        let names = ThreadCensus.threads().map(\.name)
        XCTAssertFalse(
            names.contains("census.before"),
            "this would mean Foundation now passes the name on: update NamedThread's note")
        XCTAssertTrue(names.contains("census.inside"))
        gate.signal()
        parked.release()
    }

    /// Every thread started by `NamedThread` carries its name in the kernel at once, even when
    /// many start together on a busy machine.
    func testNamedThreadNamesEveryThreadReliably() {
        let parked = ParkedThreads(200, name: "census.many")
        let named = ThreadCensus.threads().filter { $0.name == "census.many" }.count
        parked.release()
        XCTAssertEqual(named, 200)
    }

    /// A thread burning CPU is running (on a CPU or ready to run) whenever it is looked at.
    func testASpinningThreadIsRunning() throws {
        try XCTSkipUnless(PlatformInfo.current.isLinux, "thread states are read from /proc on Linux")
        let stop = SpinFlag()
        let started = DispatchSemaphore(value: 0)
        NamedThread.start("census.spin") {
            started.signal()
            while !stop.isSet {}
        }
        started.wait()
        defer { stop.set() }
        var states: [ThreadState?] = []
        for _ in 0..<5 {
            MonotonicClock.sleep(for: 0.02)
            states += ThreadCensus.threads().filter { $0.name == "census.spin" }.map(\.state)
        }
        XCTAssertEqual(states.count, 5)
        XCTAssertTrue(states.allSatisfy { $0 == .running }, "states seen: \(states)")
    }

    /// The count agrees with the list of threads, and with /proc.
    func testCountMatchesTheThreadList() {
        // Other threads of the test process can come and go between the two reads: retry.
        var agreed = false
        for _ in 0..<10 where !agreed {
            let count = ThreadCensus.count()
            let list = ThreadCensus.threads()
            agreed = count == list.count
        }
        XCTAssertTrue(agreed)
    }

    /// Linux keeps at most 15 bytes of a thread's name; a longer `Thread.name` never reaches
    /// the kernel, so tools that read /proc (and this census) do not see it.
    func testThreadNamesLongerThanFifteenBytesDoNotReachTheKernel() throws {
        try XCTSkipUnless(PlatformInfo.current.isLinux, "the 15-byte limit is the Linux kernel's")
        let short = ParkedThreads(1, name: "fifteen-chars-x")  // 15 bytes
        let long = ParkedThreads(1, name: "sixteen-chars-xy")  // 16 bytes
        let names = ThreadCensus.threads().map(\.name)
        XCTAssertTrue(names.contains("fifteen-chars-x"))
        XCTAssertFalse(names.contains("sixteen-chars-xy"))
        XCTAssertFalse(names.contains("sixteen-chars-x"), "not truncated either: the name is refused")
        short.release()
        long.release()
    }

    func testDescribeCountsStates() {
        let threads = [
            ThreadInfo(id: 1, name: "a", state: .running), ThreadInfo(id: 2, name: "b", state: .sleeping),
            ThreadInfo(id: 3, name: "c", state: .sleeping),
        ]
        XCTAssertEqual(ThreadCensus.describe(threads), "3 threads: 1 R, 2 S")
        XCTAssertEqual(ThreadCensus.describe([]), "0 threads")
    }

    func testAnotherProcessCanBeCounted() throws {
        XCTAssertEqual(ThreadCensus.count(pid: getpid()).map { $0 > 0 }, true)
        XCTAssertNil(ThreadCensus.count(pid: Int32.max - 1))
        XCTAssertEqual(ThreadCensus.threads(pid: Int32.max - 1), [])
    }
}

/// A flag a spinning test thread polls.
final class SpinFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .relaxed) }
    func set() { value.store(true, ordering: .relaxed) }
}

final class ProcStatParsingTests: XCTestCase {
    func testTheThreadsLineOfStatusIsRead() throws {
        let text = "Name:\tThreads: fake\nUmask:\t0022\nState:\tS (sleeping)\nThreads:\t42\nSigQ:\t0/95\n"
        let path = NSTemporaryDirectory() + "lab-status-\(getpid())"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        XCTAssertEqual(ProcStat.threadCount(statusFD: fd), 42, "the line, not the name that mentions it")
        XCTAssertEqual(ProcStat.threadCount(statusFD: fd), 42, "re-read from offset 0")
        if PlatformInfo.current.isLinux {  // /proc/self/status exists on Linux only
            let mine = open("/proc/self/status", O_RDONLY)
            defer { close(mine) }
            XCTAssertNotNil(ProcStat.threadCount(statusFD: mine))
        }
    }

    func testFieldTwentyIsFoundPastAnAwkwardComm() {
        let line = "4242 (a (b) c) S 1 4242 4242 0 -1 4194304 959 0 2 0 1 0 0 0 20 0 37 0 19042 309583872 6792\n"
        XCTAssertEqual(clab_stat_line_state(line), CChar(UInt8(ascii: "S")))
        XCTAssertEqual(clab_stat_line_thread_count(line), 37)
        XCTAssertEqual(clab_stat_line_thread_count("4242 (short) S 1 2"), -1, "too few fields")
        XCTAssertEqual(clab_stat_line_state("no parenthesis"), CChar(UInt8(ascii: "?")))
    }

    /// The sampler's allocation-free reader agrees with the census, even for a comm that
    /// holds spaces and parentheses.
    /// The sampler's fast count (the link count of /proc/self/task) is the process's thread
    /// count, here with 50 extra threads parked.
    func testTheTaskDirectoryLinkCountIsTheThreadCount() throws {
        try XCTSkipUnless(PlatformInfo.current.isLinux, "the link count of /proc/self/task is Linux's")
        let fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        let parked = ParkedThreads(50, name: "census.link")
        var agreed = false
        for _ in 0..<20 where !agreed {
            agreed = clab_task_dir_thread_count(fd) == ThreadCensus.threads().count
        }
        parked.release()
        XCTAssertTrue(agreed)
    }

    func testTheFastReaderAgreesWithTheCensus() throws {
        try XCTSkipUnless(PlatformInfo.current.isLinux, "the fast reader counts through /proc on Linux")
        let sampler = ThreadSampler(interval: 0.002)
        sampler.start()
        var agreed = false
        for _ in 0..<20 where !agreed {
            MonotonicClock.sleep(for: 0.01)
            agreed = sampler.latest + 1 == ThreadCensus.count()
        }
        sampler.stop()
        XCTAssertTrue(agreed)
    }
}
