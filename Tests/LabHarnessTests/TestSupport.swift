import Foundation
@testable import LabHarness
import LabHarnessXCTest
import Synchronization
import XCTest

/// The fixture program the harness's tests launch as a child.
func fixture() throws -> String { try BuiltProducts.executable("lab-fixture") }

/// Whether any process (a zombie included) has this pid.
func processExists(_ pid: Int32) -> Bool {
    kill(pid, 0) == 0 || errno == EPERM
}

/// Whether `pid` is a process still running: a zombie has died, whoever is yet to reap it. A
/// grandchild whose parent the harness killed is reaped by init, not by the harness; here init
/// is the sandbox's own, which once left such a zombie for over 2 s (a CI run failed on it).
/// Where the process table does not show the process, it counts as running.
func processAlive(_ pid: Int32) -> Bool {
    guard processExists(pid) else { return false }
    return ProcessTable.all().first { $0.pid == pid }?.state != "Z"
}

/// Whether any process is still in process group `pgid`.
func groupExists(_ pgid: Int32) -> Bool {
    kill(-pgid, 0) == 0 || errno == EPERM
}

/// Polls `condition` until it holds or `budget` seconds pass; true if it held. For facts that
/// become true once the scheduler gets round to it (a thread parked, a thread gone), which a
/// loaded machine can delay by many milliseconds.
func eventually(within budget: Double = 5, _ condition: () -> Bool) -> Bool {
    let deadline = MonotonicClock.now() + budget
    while !condition() {
        if MonotonicClock.now() >= deadline { return false }
        MonotonicClock.sleep(for: 0.005)
    }
    return true
}

/// A failure reporter that records messages instead of failing, to test the assertions.
final class RecordingReporter: Sendable {
    private let storage = Mutex<[String]>([])
    var messages: [String] { storage.withLock { $0 } }
    var reporter: FailureReporter {
        FailureReporter { [self] message, _ in storage.withLock { $0.append(message) } }
    }
}

/// Threads parked on a semaphore until `release()`, each named `name`.
final class ParkedThreads: Sendable {
    private let gate = DispatchSemaphore(value: 0)
    private let started = DispatchSemaphore(value: 0)
    private let exited = DispatchSemaphore(value: 0)
    let count: Int
    let name: String

    init(_ count: Int, name: String) {
        self.count = count
        self.name = name
        for _ in 0..<count {
            NamedThread.start(name) { [gate, started, exited] in
                started.signal()
                gate.wait()
                exited.signal()
            }
        }
        for _ in 0..<count { started.wait() }
    }

    /// Lets every thread go and waits until the kernel no longer lists them: a finished
    /// `Thread`'s task disappears a moment after its body returns (longer on a loaded machine),
    /// so this waits for that, up to 10 s.
    func release() {
        for _ in 0..<count { gate.signal() }
        for _ in 0..<count { exited.wait() }
        _ = eventually(within: 10) { !ThreadCensus.threads().contains { $0.name == name } }
    }
}

/// Runs `lab-fixture` with `arguments` as a plain child and returns (exit code, stdout, stderr).
func runFixture(_ arguments: [String], budget: Double = 30) throws -> ChildRun {
    try ChildProcess.run(ChildSpec(executable: fixture(), arguments: arguments, budget: budget))
}

extension Variant {
    /// This variant with its trials run in the test's own process, not in a child: for bodies
    /// that cannot hang or trap, and whose trials must share the test's state.
    var inProcess: Variant {
        var variant = self
        variant.runsInProcess = true
        return variant
    }
}

/// Runs `body` with a second look of 0.5 s (or four times the wait) instead of 5 s, for
/// assertions on an object that is never released (a retain cycle): the verdict, a failure,
/// is the same with any second look; only its wait, and the number in the message, change.
@discardableResult
func withBriefSecondLook<R>(_ body: () throws -> R) rethrows -> R {
    try HarnessAssertions.$secondLookFloor.withValue(0.5) { try body() }
}

/// Stops this whole process `after` seconds from now for `length` seconds, from a shell (a
/// stall of the machine, made on purpose); `over` is called once the shell has exited. Whatever
/// ends the shell (bar SIGKILL) lets this process go on.
func stopThisProcess(after: Seconds, for length: Seconds, over: @escaping @Sendable () -> Void) throws {
    let shell = Process()
    shell.executableURL = URL(fileURLWithPath: "/bin/sh")
    let pid = ProcessInfo.processInfo.processIdentifier
    shell.arguments = [
        "-c", "trap 'kill -CONT \(pid)' EXIT INT TERM HUP; sleep \(after); kill -STOP \(pid); sleep \(length)",
    ]
    shell.terminationHandler = { _ in over() }
    try shell.run()
}
