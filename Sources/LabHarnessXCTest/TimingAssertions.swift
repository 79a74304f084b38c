/// Asserts that `block` finishes within `timeout`, without hanging the test when it does not:
/// the block runs on a thread of its own, and if it overruns the assertion fails and the test
/// goes on while that thread is abandoned (a thread cannot be killed; it stays in the process
/// and in later thread counts). For code that may never return, or that blocks the threads it
/// runs on for good, use `assertInChildProcess`. Returns the block's duration, `nil` on failure.
@discardableResult
public func assertCompletes(within timeout: some WaitTime, _ message: @autoclosure () -> String = "",
                            reporter: FailureReporter = .xctest,
                            file: StaticString = #filePath, line: UInt = #line,
                            fileID: StaticString = #fileID, column: UInt = #column,
                            _ block: @escaping @Sendable () -> Void) -> Double? {
    HarnessAssertions.completes(within: timeout.labSeconds,
                                assertionCall(reporter, message(), fileID: fileID, file: file, line: line, column: column), block)
}

/// Asserts that an async operation finishes within `timeout`. The operation runs in a task of
/// its own; if it overruns, the assertion fails, the task is cancelled and abandoned.
@discardableResult
public func assertCompletes(within timeout: some WaitTime, _ message: @autoclosure () -> String = "",
                            reporter: FailureReporter = .xctest,
                            file: StaticString = #filePath, line: UInt = #line,
                            fileID: StaticString = #fileID, column: UInt = #column,
                            _ operation: @escaping @Sendable () async -> Void) async -> Double? {
    await HarnessAssertions.completes(within: timeout.labSeconds,
                                      assertionCall(reporter, message(), fileID: fileID, file: file, line: line, column: column), operation)
}

/// Asserts that while `block` runs it adds fewer than `limit` threads: threads that exist
/// during the block and did not exist before it, by identity (`counting: .added`, the
/// default), or that the process's sampled total stays under `limit` (`.total`). A failure
/// names the new threads. Thread counts are process-wide: other tests running at the same
/// time add threads too. Returns the sampled timeline, for charts.
@discardableResult
public func assertThreadPeak(staysUnder limit: Int, counting: ThreadCounting = .added, interval: Double = 0.002,
                             _ message: @autoclosure () -> String = "",
                             reporter: FailureReporter = .xctest,
                             file: StaticString = #filePath, line: UInt = #line,
                             fileID: StaticString = #fileID, column: UInt = #column,
                             _ block: () throws -> Void) rethrows -> ThreadTimeline {
    try HarnessAssertions.threadPeak(staysUnder: limit, counting: counting, interval: interval,
                                     assertionCall(reporter, message(), fileID: fileID, file: file, line: line, column: column), block)
}

/// `assertThreadPeak` for an async body.
@discardableResult
public func assertThreadPeak(staysUnder limit: Int, counting: ThreadCounting = .added, interval: Double = 0.002,
                             _ message: @autoclosure () -> String = "",
                             reporter: FailureReporter = .xctest,
                             file: StaticString = #filePath, line: UInt = #line,
                             fileID: StaticString = #fileID, column: UInt = #column,
                             _ block: () async throws -> Void) async rethrows -> ThreadTimeline {
    try await HarnessAssertions.threadPeak(staysUnder: limit, counting: counting, interval: interval,
                                           assertionCall(reporter, message(), fileID: fileID, file: file, line: line, column: column), block)
}

/// Asserts that the callback handed to `start` is called exactly once: the first call must
/// come within `timeout`, and no second call within `grace` after it. On the main thread the
/// waits keep the main queue draining, so a callback delivered there is seen. Returns the
/// first call (with its thread and time), or `nil` when there was none.
@discardableResult
public func assertCalledExactlyOnce<Value: Sendable>(within timeout: some WaitTime = 1.0, grace: some WaitTime = 0.1,
                                                     _ message: @autoclosure () -> String = "",
                                                     reporter: FailureReporter = .xctest,
                                                     file: StaticString = #filePath, line: UInt = #line,
                                                     fileID: StaticString = #fileID, column: UInt = #column,
                                                     _ start: (@escaping @Sendable (Value) -> Void) -> Void) -> CallProbe<Value>.Call? {
    HarnessAssertions.calledExactlyOnce(within: timeout.labSeconds, grace: grace.labSeconds,
                                        assertionCall(reporter, message(), fileID: fileID, file: file, line: line, column: column), start)
}

/// `assertCalledExactlyOnce` for callbacks that take no value.
@discardableResult
public func assertCalledExactlyOnce(within timeout: some WaitTime = 1.0, grace: some WaitTime = 0.1,
                                    _ message: @autoclosure () -> String = "",
                                    reporter: FailureReporter = .xctest,
                                    file: StaticString = #filePath, line: UInt = #line,
                                    fileID: StaticString = #fileID, column: UInt = #column,
                                    _ start: (@escaping @Sendable () -> Void) -> Void) -> CallProbe<Void>.Call? {
    HarnessAssertions.calledExactlyOnce(within: timeout.labSeconds, grace: grace.labSeconds,
                                        assertionCall(reporter, message(), fileID: fileID, file: file, line: line, column: column)) { (done: @escaping @Sendable (()) -> Void) in
        start { done(()) }
    }
}
