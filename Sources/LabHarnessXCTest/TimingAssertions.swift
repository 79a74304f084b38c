import LabHarnessRecording
/// Asserts that `block` finishes within `timeout`. The block runs here, on the calling thread
/// (in a synchronous XCTest test, the main thread), as it would in the app: a block that waits
/// for the main queue deadlocks here too, and fails. A watchdog thread watches the budget; when
/// it runs out it takes the stuck thread's stack, and the failure names the frame it is stuck
/// in. A block that returns late fails with that stack and the test goes on; one still stuck a
/// second later can never return, so the watchdog fails the test, prints why and ends the
/// process (exit status 1). Returns the block's duration, `nil` on failure.
@available(*, noasync, message: "it runs the block on the caller's thread and blocks it (and its actor) until the block returns; in async code use `await assertCompletes(within:) { … }`, or `await MainActor.run { assertCompletes … }` to run a block on the main thread")
@_disfavoredOverload
@discardableResult
public func assertCompletes(
    within timeout: some WaitTime, _ message: @autoclosure () -> String = "",
    reporter: FailureReporter = .xctest,
    file: StaticString = #filePath, line: UInt = #line,
    fileID: StaticString = #fileID, column: UInt = #column,
    _ block: () throws -> Void
) rethrows -> Double? {
    let call = assertionCall(reporter, message(), fileID: fileID, file: file, line: line, column: column)
    return try SwiftTestingRun.waiting(at: call.site) {
        try HarnessAssertions.completes(within: timeout.labSeconds, call, block)
    }
}

/// Asserts that an async operation finishes within `timeout`. The operation runs in a task of
/// its own; if it overruns, the assertion fails, the task is cancelled and abandoned.
@discardableResult
public func assertCompletes(
    within timeout: some WaitTime, _ message: @autoclosure () -> String = "",
    reporter: FailureReporter = .xctest,
    file: StaticString = #filePath, line: UInt = #line,
    fileID: StaticString = #fileID, column: UInt = #column,
    _ operation: @escaping @Sendable () async -> Void
) async -> Double? {
    await HarnessAssertions.completes(
        within: timeout.labSeconds,
        assertionCall(reporter, message(), fileID: fileID, file: file, line: line, column: column), operation)
}

/// Asserts that while `block` runs it adds fewer than `limit` threads: threads that exist
/// during the block and did not exist before it, by identity (`counting: .added`, the
/// default), or that the process's sampled total stays under `limit` (`.total`). A failure
/// names the new threads. Thread counts are process-wide: other tests running at the same
/// time add threads too. Returns the sampled timeline, for charts.
@available(*, noasync, message: "it blocks the caller's thread and actor while it samples; in async code use `await assertThreadPeak(staysUnder:) { … }`")
@_disfavoredOverload
@discardableResult
public func assertThreadPeak(
    staysUnder limit: Int, counting: ThreadCounting = .added, interval: Double = 0.002,
    reportsPass: Bool = false,
    _ message: @autoclosure () -> String = "",
    reporter: FailureReporter = .xctest,
    file: StaticString = #filePath, line: UInt = #line,
    fileID: StaticString = #fileID, column: UInt = #column,
    _ block: () throws -> Void
) rethrows -> ThreadTimeline {
    try HarnessAssertions.threadPeak(
        staysUnder: limit, counting: counting, interval: interval,
        noting(reportsPass, assertionCall(reporter, message(), fileID: fileID, file: file, line: line, column: column)),
        block)
}

/// `assertThreadPeak` in an async test; the body runs on the caller's actor.
@discardableResult
public func assertThreadPeak(
    staysUnder limit: Int, counting: ThreadCounting = .added, interval: Double = 0.002,
    reportsPass: Bool = false,
    _ message: @autoclosure () -> String = "",
    reporter: FailureReporter = .xctest,
    file: StaticString = #filePath, line: UInt = #line,
    fileID: StaticString = #fileID, column: UInt = #column,
    isolation: isolated (any Actor)? = #isolation,
    _ block: () async throws -> Void
) async rethrows -> ThreadTimeline {
    try await HarnessAssertions.threadPeak(
        staysUnder: limit, counting: counting, interval: interval,
        noting(reportsPass, assertionCall(reporter, message(), fileID: fileID, file: file, line: line, column: column)),
        block)
}

/// Asserts that the callback handed to `start` is called exactly once: the first call must
/// come within `timeout`, and no second call within `grace` after it. On the main thread the
/// waits keep the main queue draining, so a callback delivered there is seen. Returns the
/// first call (with its thread and time), or `nil` when there was none.
@available(*, noasync, message: "it blocks the caller's thread and actor for the whole wait; in async code use `await assertCalledExactlyOnce { … }`")
@_disfavoredOverload
@discardableResult
public func assertCalledExactlyOnce<Value: Sendable>(
    within timeout: some WaitTime = 1.0, grace: some WaitTime = HarnessAssertions.defaultGrace,
    _ message: @autoclosure () -> String = "",
    reporter: FailureReporter = .xctest,
    file: StaticString = #filePath, line: UInt = #line,
    fileID: StaticString = #fileID, column: UInt = #column,
    _ start: (@escaping @Sendable (Value) -> Void) -> Void
) -> CallProbe<Value>.Call? {
    HarnessAssertions.calledExactlyOnce(
        within: timeout.labSeconds, grace: grace.labSeconds,
        noting(true, assertionCall(reporter, message(), fileID: fileID, file: file, line: line, column: column)), start)
}

/// `assertCalledExactlyOnce` for callbacks that take no value.
@available(*, noasync, message: "it blocks the caller's thread and actor for the whole wait; in async code use `await assertCalledExactlyOnce { … }`")
@_disfavoredOverload
@discardableResult
public func assertCalledExactlyOnce(
    within timeout: some WaitTime = 1.0, grace: some WaitTime = HarnessAssertions.defaultGrace,
    _ message: @autoclosure () -> String = "",
    reporter: FailureReporter = .xctest,
    file: StaticString = #filePath, line: UInt = #line,
    fileID: StaticString = #fileID, column: UInt = #column,
    _ start: (@escaping @Sendable () -> Void) -> Void
) -> CallProbe<Void>.Call? {
    HarnessAssertions.calledExactlyOnce(
        within: timeout.labSeconds, grace: grace.labSeconds,
        noting(true, assertionCall(reporter, message(), fileID: fileID, file: file, line: line, column: column))
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
    reporter: FailureReporter = .xctest,
    file: StaticString = #filePath, line: UInt = #line,
    fileID: StaticString = #fileID, column: UInt = #column,
    isolation: isolated (any Actor)? = #isolation,
    _ start: (@escaping @Sendable (Value) -> Void) async -> Void
) async -> CallProbe<Value>.Call? {
    await HarnessAssertions.calledExactlyOnce(
        within: timeout.labSeconds, grace: grace.labSeconds,
        noting(true, assertionCall(reporter, message(), fileID: fileID, file: file, line: line, column: column)), start)
}

/// `assertCalledExactlyOnce` in an async test, for callbacks that take no value.
@discardableResult
public func assertCalledExactlyOnce(
    within timeout: some WaitTime = 1.0, grace: some WaitTime = HarnessAssertions.defaultGrace,
    _ message: @autoclosure () -> String = "",
    reporter: FailureReporter = .xctest,
    file: StaticString = #filePath, line: UInt = #line,
    fileID: StaticString = #fileID, column: UInt = #column,
    isolation: isolated (any Actor)? = #isolation,
    _ start: (@escaping @Sendable () -> Void) async -> Void
) async -> CallProbe<Void>.Call? {
    await HarnessAssertions.calledExactlyOnce(
        within: timeout.labSeconds, grace: grace.labSeconds,
        noting(true, assertionCall(reporter, message(), fileID: fileID, file: file, line: line, column: column))
    ) { (done: @escaping @Sendable (()) -> Void) in
        await start { done(()) }
    }
}

/// Asserts that the callback handed to `start` is called, within `timeout`, on the main queue:
/// true for a block of the main queue whichever thread drains it (the main thread under
/// XCTest, a dispatch worker under Swift Testing on Linux). On the main thread the wait keeps
/// the main queue draining. Returns the first call, `nil` on failure.
@available(*, noasync, message: "it blocks the caller's thread and actor for the whole wait; in async code use `await assertCalledOnMainQueue { … }`")
@_disfavoredOverload
@discardableResult
public func assertCalledOnMainQueue<Value: Sendable>(
    within timeout: some WaitTime = 1.0, _ message: @autoclosure () -> String = "",
    reporter: FailureReporter = .xctest,
    file: StaticString = #filePath, line: UInt = #line,
    fileID: StaticString = #fileID, column: UInt = #column,
    _ start: (@escaping @Sendable (Value) -> Void) -> Void
) -> CallProbe<Value>.Call? {
    HarnessAssertions.calledOnMainQueue(
        within: timeout.labSeconds,
        assertionCall(reporter, message(), fileID: fileID, file: file, line: line, column: column), start)
}

/// `assertCalledOnMainQueue` in an async test: `start` runs on the caller's actor and may await.
@discardableResult
public func assertCalledOnMainQueue<Value: Sendable>(
    within timeout: some WaitTime = 1.0, _ message: @autoclosure () -> String = "",
    reporter: FailureReporter = .xctest,
    file: StaticString = #filePath, line: UInt = #line,
    fileID: StaticString = #fileID, column: UInt = #column,
    isolation: isolated (any Actor)? = #isolation,
    _ start: (@escaping @Sendable (Value) -> Void) async -> Void
) async -> CallProbe<Value>.Call? {
    await HarnessAssertions.calledOnMainQueue(
        within: timeout.labSeconds,
        assertionCall(reporter, message(), fileID: fileID, file: file, line: line, column: column), start)
}

/// `call`, reporting a pass as a log line (`path:line:column: note: …` on stdout, beside
/// XCTest's own lines) when `reportsPass`.
func noting(_ reportsPass: Bool, _ call: AssertionCall) -> AssertionCall {
    guard reportsPass else { return call }
    var call = call
    call.note = { text, site in print("\(site): note: \(text)") }
    return call
}
