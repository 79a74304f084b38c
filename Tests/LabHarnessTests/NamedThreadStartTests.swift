import Foundation
import LabHarness
import Synchronization
import XCTest

/// `NamedThread.startAndAwait`: a starter waits for its thread to be ready, but never past a
/// budget, and not at all once the thread could not be created, so a trial at a thread limit
/// ends at once, named for the limit, instead of at its budget.
final class NamedThreadStartTests: XCTestCase {
    func testAThreadThatSignalsIsAwaited() {
        let told = Mutex<Bool?>(nil), done = DispatchSemaphore(value: 0)
        let published = Atomic<Bool>(false)
        let started = NamedThread.startAndAwait("test.ready") { start in
            told.withLock { $0 = start.signalReady(publishing: { published.store(true, ordering: .relaxed) }) }
            done.signal()
        }
        XCTAssertTrue(started)
        XCTAssertTrue(published.load(ordering: .relaxed), "what the thread publishes is there once its starter goes on")
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success)
        XCTAssertEqual(told.withLock { $0 }, true, "its starter was still waiting")
    }

    /// A thread that never becomes ready costs its starter the budget and no more; if it turns
    /// up later it learns that its starter went on, and what it would publish stays unpublished.
    func testAThreadNeverReadyIsGivenUpAtTheBudget() {
        let release = DispatchSemaphore(value: 0), late = Mutex<Bool?>(nil), done = DispatchSemaphore(value: 0)
        let published = Atomic<Bool>(false)
        let began = MonotonicClock.now()
        let started = NamedThread.startAndAwait("test.late", budget: 0.2) { start in
            release.wait()
            late.withLock { $0 = start.signalReady(publishing: { published.store(true, ordering: .relaxed) }) }
            done.signal()
        }
        let waited = MonotonicClock.now() - began
        XCTAssertFalse(started)
        XCTAssertGreaterThanOrEqual(waited, 0.2)
        XCTAssertLessThan(waited, 2, "the budget bounds the wait")
        release.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success)
        XCTAssertEqual(late.withLock { $0 }, false, "a late thread is told its starter went on")
        XCTAssertFalse(published.load(ordering: .relaxed), "and publishes nothing over what the starter set up")
    }

    /// At a thread limit (`ulimit -p 1` for the user nobody, whose one task is the fixture),
    /// `pthread_create` fails and the starter hears of it within the failure grace, not the
    /// ten-second budget. Needs root to run the fixture as nobody (root ignores the limit).
    func testAThreadThatCannotBeCreatedIsGivenUpAtOnce() throws {
        let run = try runAtAThreadLimit("await-thread")
        XCTAssertEqual(run.exitCode, 0, run.stderr)
        let words = run.stdout.split(whereSeparator: \.isWhitespace)
        XCTAssertEqual(words.first.map(String.init), "started", run.stdout)
        XCTAssertEqual(
            words.dropFirst().first.map(String.init), "false", "the thread could not be created: \(run.stdout)")
        let after = try XCTUnwrap(words.last.flatMap { Double($0) }, run.stdout)
        XCTAssertLessThan(
            after, NamedThread.startBudget / 2, "given up on the failed creation, not at the budget: \(run.stdout)")
    }

    /// A synchronous `assertCompletes` whose watchdog thread cannot be created has nothing to
    /// bound its block: it fails, naming the thread limit, without running the block. Before,
    /// the block ran unwatched, and one that never returned hung the process until the parent's
    /// budget killed it.
    func testAnAssertCompletesWithoutItsWatchdogDoesNotRunTheBlock() throws {
        let run = try runAtAThreadLimit("completes-unwatched", budget: 10)
        XCTAssertEqual(run.outcome, .completed, run.evidence)
        XCTAssertTrue(run.stdout.contains("failed: could not start its watchdog thread"), run.stdout)
        XCTAssertFalse(run.stdout.contains("the block ran"), run.stdout)
        XCTAssertTrue(run.stdout.contains("returned nil"), run.stdout)
    }

    /// Runs the fixture in `mode` as the user nobody with `ulimit -p 1` (one task: no thread can
    /// be created). Needs root to switch users (root ignores the limit).
    private func runAtAThreadLimit(_ mode: String, budget: Seconds = 30) throws -> ChildRun {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            throw XCTSkip("needs root and util-linux's setpriv to run the fixture as the user nobody at a thread limit")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(mode)-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = directory.appendingPathComponent("lab-fixture").path
        try FileManager.default.copyItem(atPath: try fixture(), toPath: copy)
        chmod(directory.path, 0o755)
        chmod(copy, 0o755)
        return try ChildProcess.run(
            ChildSpec(
                executable: "/usr/bin/setpriv",
                arguments: [
                    "--reuid=65534", "--regid=65534", "--clear-groups", "/bin/sh", "-c",
                    "ulimit -p 1 && exec \"$0\" \(mode)", copy,
                ],
                budget: budget))
    }
}
