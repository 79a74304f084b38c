import LabHarnessRecording
import Testing

/// Records an issue unless `block` finishes within `timeout`. The block runs here, on the
/// calling thread (in a `@MainActor` test, the main thread), as it would in the app. A
/// watchdog thread watches the budget; when it runs out it takes the stuck thread's stack, and
/// the issue names the frame it is stuck in. A block that returns late fails with that stack
/// and the test goes on; one still stuck a second later can never return, so the watchdog
/// prints the failure and ends the process (exit status 1): inside an exit test
/// (`#expect(processExitsWith: .failure, observing: [\.standardErrorContent])`) the parent
/// reads that message. Returns the block's duration, `nil` on failure.
@available(*, noasync, message: "it runs the block on the caller's thread and blocks it (and its actor) until the block returns; in async code use `await assertCompletes(within:) { … }`, or `await MainActor.run { assertCompletes … }` to run a block on the main thread")
@_disfavoredOverload
@discardableResult
public func assertCompletes(
    within timeout: some WaitTime, _ message: @autoclosure () -> String = "",
    reporter: FailureReporter = .swiftTesting,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ block: () throws -> Void
) rethrows -> Double? {
    let call = assertionCall(reporter, message(), sourceLocation)
    return try SwiftTestingRun.waiting(at: call.site) {
        try HarnessAssertions.completes(within: timeout.labSeconds, call, block)
    }
}

/// Records an issue unless an async operation finishes within `timeout`; on overrun the task
/// is cancelled and abandoned.
@discardableResult
public func assertCompletes(
    within timeout: some WaitTime, _ message: @autoclosure () -> String = "",
    reporter: FailureReporter = .swiftTesting,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ operation: @escaping @Sendable () async -> Void
) async -> Double? {
    await HarnessAssertions.completes(
        within: timeout.labSeconds, assertionCall(reporter, message(), sourceLocation), operation)
}

/// Records an issue naming the new threads when `block` adds `limit` threads or more (by
/// identity: threads that exist during the block and did not before it), or, with
/// `counting: .total`, when the sampled total reaches `limit`. Thread counts are
/// process-wide: Swift Testing runs tests in parallel, so put such tests in a `.serialized`
/// suite. Returns the sampled timeline.
@available(*, noasync, message: "it blocks the caller's thread and actor while it samples; in async code use `await assertThreadPeak(staysUnder:) { … }`")
@_disfavoredOverload
@discardableResult
public func assertThreadPeak(
    staysUnder limit: Int, counting: ThreadCounting = .added, interval: Double = 0.002,
    reportsPass: Bool = false,
    _ message: @autoclosure () -> String = "",
    reporter: FailureReporter = .swiftTesting,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ block: () throws -> Void
) rethrows -> ThreadTimeline {
    try HarnessAssertions.threadPeak(
        staysUnder: limit, counting: counting, interval: interval,
        noting(reportsPass, assertionCall(reporter, message(), sourceLocation)), block)
}

/// `assertThreadPeak` in an async test; the body runs on the caller's actor.
@discardableResult
public func assertThreadPeak(
    staysUnder limit: Int, counting: ThreadCounting = .added, interval: Double = 0.002,
    reportsPass: Bool = false,
    _ message: @autoclosure () -> String = "",
    reporter: FailureReporter = .swiftTesting,
    sourceLocation: SourceLocation = #_sourceLocation,
    isolation: isolated (any Actor)? = #isolation,
    _ block: () async throws -> Void
) async rethrows -> ThreadTimeline {
    try await HarnessAssertions.threadPeak(
        staysUnder: limit, counting: counting, interval: interval,
        noting(reportsPass, assertionCall(reporter, message(), sourceLocation)), block)
}

/// Records an issue unless the callback handed to `start` is called exactly once: the first
/// call within `timeout`, no second call within `grace` after it. Returns the first call.
@available(*, noasync, message: "it blocks the caller's thread and actor for the whole wait; in async code use `await assertCalledExactlyOnce { … }`")
@_disfavoredOverload
@discardableResult
public func assertCalledExactlyOnce<Value: Sendable>(
    within timeout: some WaitTime = 1.0, grace: some WaitTime = HarnessAssertions.defaultGrace,
    _ message: @autoclosure () -> String = "",
    reporter: FailureReporter = .swiftTesting,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ start: (@escaping @Sendable (Value) -> Void) -> Void
) -> CallProbe<Value>.Call? {
    HarnessAssertions.calledExactlyOnce(
        within: timeout.labSeconds, grace: grace.labSeconds,
        noting(true, assertionCall(reporter, message(), sourceLocation)), start)
}

/// `assertCalledExactlyOnce` for callbacks that take no value.
@available(*, noasync, message: "it blocks the caller's thread and actor for the whole wait; in async code use `await assertCalledExactlyOnce { … }`")
@_disfavoredOverload
@discardableResult
public func assertCalledExactlyOnce(
    within timeout: some WaitTime = 1.0, grace: some WaitTime = HarnessAssertions.defaultGrace,
    _ message: @autoclosure () -> String = "",
    reporter: FailureReporter = .swiftTesting,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ start: (@escaping @Sendable () -> Void) -> Void
) -> CallProbe<Void>.Call? {
    HarnessAssertions.calledExactlyOnce(
        within: timeout.labSeconds, grace: grace.labSeconds,
        noting(true, assertionCall(reporter, message(), sourceLocation))
    ) { (done: @escaping @Sendable (()) -> Void) in
        start { done(()) }
    }
}

/// `assertCalledExactlyOnce` in an async test: `start` runs on the caller's actor and may
/// await; the waits suspend, so a callback delivered on the caller's actor is seen.
@discardableResult
public func assertCalledExactlyOnce<Value: Sendable>(
    within timeout: some WaitTime = 1.0, grace: some WaitTime = HarnessAssertions.defaultGrace,
    _ message: @autoclosure () -> String = "",
    reporter: FailureReporter = .swiftTesting,
    sourceLocation: SourceLocation = #_sourceLocation,
    isolation: isolated (any Actor)? = #isolation,
    _ start: (@escaping @Sendable (Value) -> Void) async -> Void
) async -> CallProbe<Value>.Call? {
    await HarnessAssertions.calledExactlyOnce(
        within: timeout.labSeconds, grace: grace.labSeconds,
        noting(true, assertionCall(reporter, message(), sourceLocation)), start)
}

/// `assertCalledExactlyOnce` in an async test, for callbacks that take no value.
@discardableResult
public func assertCalledExactlyOnce(
    within timeout: some WaitTime = 1.0, grace: some WaitTime = HarnessAssertions.defaultGrace,
    _ message: @autoclosure () -> String = "",
    reporter: FailureReporter = .swiftTesting,
    sourceLocation: SourceLocation = #_sourceLocation,
    isolation: isolated (any Actor)? = #isolation,
    _ start: (@escaping @Sendable () -> Void) async -> Void
) async -> CallProbe<Void>.Call? {
    await HarnessAssertions.calledExactlyOnce(
        within: timeout.labSeconds, grace: grace.labSeconds,
        noting(true, assertionCall(reporter, message(), sourceLocation))
    ) { (done: @escaping @Sendable (()) -> Void) in
        await start { done(()) }
    }
}

/// `call`, reporting a pass when `reportsPass`: an attachment of the running test
/// Records an issue unless the callback handed to `start` is called, within `timeout`, on the
/// main queue: true for a block of the main queue whichever thread drains it (under Swift
/// Testing on Linux a dispatch worker drains it, and `Thread.isMainThread` is false there).
/// Returns the first call, `nil` on failure.
@available(*, noasync, message: "it blocks the caller's thread and actor for the whole wait; in async code use `await assertCalledOnMainQueue { … }`")
@_disfavoredOverload
@discardableResult
public func assertCalledOnMainQueue<Value: Sendable>(
    within timeout: some WaitTime = 1.0, _ message: @autoclosure () -> String = "",
    reporter: FailureReporter = .swiftTesting,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ start: (@escaping @Sendable (Value) -> Void) -> Void
) -> CallProbe<Value>.Call? {
    HarnessAssertions.calledOnMainQueue(
        within: timeout.labSeconds, assertionCall(reporter, message(), sourceLocation), start)
}

/// `assertCalledOnMainQueue` in an async test: `start` runs on the caller's actor and may await.
@discardableResult
public func assertCalledOnMainQueue<Value: Sendable>(
    within timeout: some WaitTime = 1.0, _ message: @autoclosure () -> String = "",
    reporter: FailureReporter = .swiftTesting,
    sourceLocation: SourceLocation = #_sourceLocation,
    isolation: isolated (any Actor)? = #isolation,
    _ start: (@escaping @Sendable (Value) -> Void) async -> Void
) async -> CallProbe<Value>.Call? {
    await HarnessAssertions.calledOnMainQueue(
        within: timeout.labSeconds, assertionCall(reporter, message(), sourceLocation), start)
}

/// (`threads.txt`, kept with `swift test --attachments-path DIR`) and a line on stdout.
func noting(_ reportsPass: Bool, _ call: AssertionCall) -> AssertionCall {
    guard reportsPass else { return call }
    var call = call
    call.note = { text, site in
        print("\(site): note: \(text)")
        if Test.current != nil {
            Attachment.record(
                text, named: "threads.txt",
                sourceLocation: SourceLocation(
                    fileID: site.fileID, filePath: site.filePath, line: site.line, column: site.column))
        }
    }
    return call
}
