import Foundation
import LabHarness
import Synchronization
import Testing

/// What the harness knows of the Swift Testing run in this process, for going on after a hang
/// (`SuiteContinuation`): the tests that ended (those run under one of the harness's traits,
/// `.hangWatch` on a suite covering every test in it) and the tests that hung (past their hang
/// watch, or stuck in a synchronous `assertCompletes`).
///
/// The relaunched copy gets this process's own arguments (`swift test` passes its command line,
/// `--filter` included, with `--testing-library swift-testing`), plus one `--skip` for each of
/// these tests: the tests that ended before the hang and the hung one do not run again; every
/// other test of the run does, including one that was running beside the hung test (it never
/// reported). Swift Testing has no public observer of a whole run, so a test that ended outside
/// the harness's traits is not known to have ended and runs again in the copy.
public enum SwiftTestingRun {
    private struct State {
        var ended: [String] = []
        var endedSet: Set<String> = []
        var hung: [String] = []
        /// Hung tests that ended after their watch fired (within its grace): not the hung one.
        var endedAfterHang: Set<String> = []
        var inSyncWait: [String: Int] = [:]
        var recorders: [String: [BoundRecorder]] = [:]
    }

    private static let state = Mutex(State())
    private static let registered = Atomic<Bool>(false)
    private static let sawATest = Atomic<Bool>(false)

    /// Whether Swift Testing runs tests in this process, as far as the harness can tell without
    /// guessing: SwiftPM started it for Swift Testing (`--testing-library swift-testing`, which
    /// `swift test` passes to the Linux test binary and to the helper that hosts a Mac's Swift
    /// Testing run; its XCTest run gets no such argument), or the harness has seen a Swift Testing
    /// test in it (`Test.current` set at an assertion, a test under one of its traits). Swift
    /// Testing has no public "a run is going on". So a run under another host (Xcode, which runs
    /// both frameworks in one process without that argument) whose only harness calls are
    /// outside any test's task is not known to be one.
    static var isUnderway: Bool { startedForSwiftTesting || sawATest.load(ordering: .acquiring) }

    /// The command line names Swift Testing as the testing library (no XCTest test runs here).
    static let startedForSwiftTesting: Bool = {
        let arguments = CommandLine.arguments
        if arguments.contains("--testing-library=swift-testing") { return true }
        guard let flag = arguments.firstIndex(of: "--testing-library"), flag + 1 < arguments.count else { return false }
        return arguments[flag + 1].lowercased() == "swift-testing"
    }()

    /// A Swift Testing test is running on the caller's task (or an exit test in this process).
    static func noteTestSeen() {
        if !sawATest.load(ordering: .relaxed) { sawATest.store(true, ordering: .releasing) }
    }

    /// `Module.Suite/test()`: the test's name as `--list-tests` prints it and `--skip` matches it.
    public static func identifier(of test: Test) -> String {
        test.id.moduleName + "." + test.id.nameComponents.joined(separator: "/")
    }

    /// The test ended (passed or failed) in this process.
    public static func ended(_ test: Test) {
        noteTestSeen()
        register()
        let id = identifier(of: test)
        state.withLock {
            if $0.hung.contains(id) { $0.endedAfterHang.insert(id) }
            if $0.endedSet.insert(id).inserted { $0.ended.append(id) }
        }
    }

    /// The test's hang watch fired: it is failed, and the process ends if it does not end.
    public static func hung(_ test: Test) {
        noteTestSeen()
        register()
        let id = identifier(of: test)
        state.withLock { $0.hung.append(id) }
    }

    /// Runs `body` (a synchronous wait that may never return, called at `site`) as part of the
    /// running test: a hang that ends the process knows which test it was, and a failure that a
    /// watchdog thread records for `site` meanwhile (where `Test.current` is not set) is
    /// recorded on this test, through a task that carries the test's context.
    ///
    /// In an exit test's body (`ExitTest.current` is set, `Test.current` is not) the failure is
    /// recorded the same way, as an issue of the exit test, which Swift Testing hands to the
    /// parent test: the stack of a hang in the child reaches the parent's issue.
    public static func waiting<R>(at site: FailureSite, _ body: () throws -> R) rethrows -> R {
        let test = Test.current
        guard test != nil || ExitTest.current != nil else { return try body() }
        let id = test.map(identifier(of:))
        if id != nil { register() }
        let recorder = BoundRecorder(thread: KernelThreadID.current())
        let key = "\(site)"
        state.withLock { state in
            if let id { state.inSyncWait[id, default: 0] += 1 }
            state.recorders[key, default: []].append(recorder)
        }
        defer {
            recorder.close()
            state.withLock { state in
                if let id {
                    state.inSyncWait[id, default: 1] -= 1
                    if state.inSyncWait[id] == 0 { state.inSyncWait[id] = nil }
                }
                state.recorders[key]?.removeAll { $0 === recorder }
                if state.recorders[key]?.isEmpty == true { state.recorders[key] = nil }
            }
        }
        return try body()
    }

    /// Whether this process is the child of an exit test (an issue recorded in its body's task
    /// reaches the parent test).
    public static var inExitTest: Bool { ExitTest.current != nil }

    /// Records `message` on the test waiting at `site` (see `waiting(at:_:)`); false when no
    /// test waits there, or its task did not take it within two seconds.
    ///
    /// Tests side by side (a parameterized test's cases, parallel suites) may wait at one site:
    /// a watchdog says which thread it watched (`WatchdogRecording.watchedThread`), and the
    /// message goes to the test that thread waits for, not to the last to start waiting there.
    static func recordForWaitingTest(_ message: String, at site: FailureSite) -> Bool {
        let watched = WatchdogRecording.watchedThread
        let waiting = state.withLock { $0.recorders["\(site)"] ?? [] }
        guard let recorder = recorder(for: watched, among: waiting) else { return false }
        return recorder.record(message, at: site, within: 2)
    }

    /// The recorder of the wait on thread `watched`; with no thread known, the last to start.
    static func recorder(for watched: Int?, among recorders: [BoundRecorder]) -> BoundRecorder? {
        guard let watched else { return recorders.last }
        return recorders.last { $0.thread == watched }
    }

    private static func register() {
        guard !registered.exchange(true, ordering: .acquiringAndReleasing) else { return }
        SuiteContinuation.register("swift-testing") { plan() }
    }

    /// A `--skip` pattern that matches test `id` (`Module.Suite/f()`) and no other: Swift Testing
    /// matches a pattern anywhere in an id (which goes on with the test's source location), so
    /// the bare name of `CoreTests.Suite/f()` also skipped `AppCoreTests.Suite/f()`, which then
    /// never ran in the copy, and was not named.
    static func skipPattern(for id: String) -> String {
        "^" + NSRegularExpression.escapedPattern(for: id) + "(/|$)"
    }

    static func plan() -> SuiteContinuation.Plan? {
        let (ended, hungTests) = state.withLock { state -> ([String], [String]) in
            // A test whose watch fired but that ended within its grace is not the hung one. A
            // parameterized test ends once for each of its cases (the trait's scope is a case's):
            // an end before its watch fired was of an earlier case, and a later one may hang.
            var hung = state.hung.filter { !state.endedAfterHang.contains($0) }
            for id in state.inSyncWait.keys.sorted() where !hung.contains(id) { hung.append(id) }
            return (state.ended, hung)
        }
        guard let hungTest = hungTests.first else { return nil }
        var arguments = Array(CommandLine.arguments.dropFirst())
        for id in ended + hungTests { arguments += ["--skip", skipPattern(for: id)] }
        let skipped = ended.count
        return SuiteContinuation.Plan(
            framework: "Swift Testing", hungTest: hungTest, arguments: arguments,
            remaining:
                "the Swift Testing tests of this run that had not ended (skipping the hung one and the \(skipped) that LabHarness saw end)"
        )
    }
}

/// A task started inside a test (so it carries the test's `Test.current` and configuration)
/// that waits for one failure from another thread and records it as an `Issue` of that test.
final class BoundRecorder: Sendable {
    private enum Inbox {
        case empty, waiting(CheckedContinuation<(String, FailureSite)?, Never>), message(String, FailureSite), closed
    }
    private let inbox = Mutex<Inbox>(.empty)
    private let recorded = DispatchSemaphore(value: 0)
    /// The thread that waits (`KernelThreadID`): a watchdog's failure for it comes here.
    let thread: Int?

    init(thread: Int?) {
        self.thread = thread
        // An unstructured task copies the creating task's task-local values: the test's.
        Task { [self] in
            guard let (message, site) = await next() else { return }
            Issue.record(
                Comment(rawValue: message),
                sourceLocation: SourceLocation(
                    fileID: site.fileID, filePath: site.filePath, line: site.line, column: site.column))
            recorded.signal()
        }
    }

    private func next() async -> (String, FailureSite)? {
        await withCheckedContinuation { continuation in
            let now: (String, FailureSite)?? = inbox.withLock { inbox in
                switch inbox {
                case .message(let message, let site): inbox = .closed; return .some((message, site))
                case .closed: return .some(nil)
                default: inbox = .waiting(continuation); return nil
                }
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// Hands `message` to the test's task and waits (at most `budget`) until it is recorded.
    func record(_ message: String, at site: FailureSite, within budget: Seconds) -> Bool {
        let waiting: CheckedContinuation<(String, FailureSite)?, Never>?? = inbox.withLock { inbox in
            switch inbox {
            case .empty: inbox = .message(message, site); return .some(nil)
            case .waiting(let continuation): inbox = .closed; return .some(continuation)
            default: return nil
            }
        }
        guard let waiting else { return false }
        waiting?.resume(returning: (message, site))
        return recorded.wait(timeout: .now() + .nanoseconds(Int(budget * 1e9))) == .success
    }

    /// The wait returned: the task ends without recording.
    func close() {
        let waiting: CheckedContinuation<(String, FailureSite)?, Never>? = inbox.withLock { inbox in
            switch inbox {
            case .waiting(let continuation): inbox = .closed; return continuation
            case .empty: inbox = .closed; return nil
            default: return nil  // a message is on its way to the task, or it is closed
            }
        }
        waiting?.resume(returning: nil)
    }
}
