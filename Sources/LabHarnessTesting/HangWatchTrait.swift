import LabHarnessRecording
import Synchronization
import Testing

/// `@Test(.hangWatch(after: 10))` or `@Suite(.hangWatch(after: 10))`: a time limit on each test,
/// in seconds (`.timeLimit` takes whole minutes, and cannot stop a test that is blocked or
/// waits on a continuation nobody resumes). When a test runs past it, the watch, on a thread of
/// its own, takes every thread's stack, prints them grouped on stderr
/// (`1 thread (dispatch worker): in _dispatch_semaphore_wait_slow ← Fetcher.fetch (Fetcher.swift:21) ← …`),
/// records an issue at the test, and cancels its task. A test that has not ended half a second
/// later cannot be stopped, so the process ends with exit status 1: CI fails within the limit
/// plus about a second and a half, with the stuck frames named, instead of hanging.
///
/// On a suite it watches each test of the suite (nested suites too) separately.
public struct HangWatchTrait: TestTrait, SuiteTrait, TestScoping {
    /// Seconds each test may run.
    public var limit: Double

    public var isRecursive: Bool { true }

    public init(limit: Double) { self.limit = limit }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        SuiteContinuation.bindIfRelaunched()
        guard !test.isSuite else { return try await function() }
        defer { SwiftTestingRun.ended(test) }
        try await watch(testName: test.name, test: test, sourceLocation: test.sourceLocation, function)
    }

    /// Runs `body` under this watch, as the trait runs a test: `testName` names it in the
    /// failure, which is recorded at `sourceLocation`. For code that is not a test of its own
    /// (the body of an exit test, say).
    public func watch(
        testName: String, sourceLocation site: SourceLocation = #_sourceLocation,
        _ function: @Sendable () async throws -> Void
    ) async throws {
        try await watch(testName: testName, test: nil, sourceLocation: site, function)
    }

    private func watch(
        testName: String, test: Test?, sourceLocation site: SourceLocation,
        _ function: @Sendable () async throws -> Void
    ) async throws {
        let fired = FiredSignal()
        let watch = HangWatch(limit: limit, testName: testName, scoped: true) { message in
            // Known as hung before the process may end: the run goes on without it.
            if let test { SwiftTestingRun.hung(test) }
            fired.fire(message)
        }
        defer { watch.testEnded() }
        try await HangWatch.$watching.withValue(HangWatch.watching + [watch]) {
            try await watched(function, by: watch, fired: fired, site)
        }
    }

    private func watched(
        _ function: @Sendable () async throws -> Void, by watch: HangWatch, fired: FiredSignal, _ site: SourceLocation
    ) async throws {
        try await withoutActuallyEscaping(function) { body in
            try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    // Ended or threw: the waiter below must not wait on, unless the watch fired
                    // first (the test overran, though it ended while the stacks were taken): its
                    // failure is on its way, and the waiter records it before the test ends.
                    defer { if watch.testEnded() { fired.cancel() } }
                    try await body()
                    return true
                }
                // Records the issue in this test's task (where `Test.current` is set) when the
                // watch fires; the body's task is then cancelled.
                group.addTask {
                    guard let message = await fired.wait() else { return false }
                    Issue.record(Comment(rawValue: message), sourceLocation: site)
                    return false
                }
                while let finished = try await group.next() {
                    if finished { break }  // the body ended
                    group.cancelAll()  // the watch fired: ask the body to stop
                }
            }
        }
    }
}

extension Trait where Self == HangWatchTrait {
    /// Fails a test that runs longer than `limit` (seconds, or a `Duration`), with every
    /// thread's stack, and ends the process if the test cannot be stopped.
    public static func hangWatch(after limit: some WaitTime) -> Self { HangWatchTrait(limit: limit.labSeconds) }
}

/// The watch's message handed from its thread to the test's task, or the news that the test
/// ended first.
private final class FiredSignal: Sendable {
    private enum State { case waiting, fired(String), cancelled }
    private let state = Mutex<(state: State, continuation: CheckedContinuation<String?, Never>?)>((.waiting, nil))

    func fire(_ message: String) { resolve(.fired(message)) }
    func cancel() { resolve(.cancelled) }

    func wait() async -> String? {
        await withCheckedContinuation { continuation in
            let now: String?? = state.withLock { shared in
                switch shared.state {
                case .waiting: shared.continuation = continuation; return nil
                case .fired(let message): return .some(message)
                case .cancelled: return .some(nil)
                }
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    private func resolve(_ outcome: State) {
        let continuation = state.withLock { shared -> CheckedContinuation<String?, Never>? in
            guard case .waiting = shared.state else { return nil }
            shared.state = outcome
            defer { shared.continuation = nil }
            return shared.continuation
        }
        switch outcome {
        case .fired(let message): continuation?.resume(returning: message)
        default: continuation?.resume(returning: nil)
        }
    }
}
