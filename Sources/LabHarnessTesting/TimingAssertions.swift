import Testing

/// Records an issue unless `block` finishes within `timeout`. The block runs on a thread of
/// its own; when it overruns, the test goes on and that thread is abandoned (it stays in the
/// process and in later thread counts). Code that may never return belongs in an exit test
/// (`#expect(processExitsWith:)`). Returns the block's duration, `nil` on failure.
@discardableResult
public func assertCompletes(within timeout: some WaitTime, _ message: @autoclosure () -> String = "",
                            reporter: FailureReporter = .swiftTesting,
                            sourceLocation: SourceLocation = #_sourceLocation,
                            _ block: @escaping @Sendable () -> Void) -> Double? {
    HarnessAssertions.completes(within: timeout.labSeconds, assertionCall(reporter, message(), sourceLocation), block)
}

/// Records an issue unless an async operation finishes within `timeout`; on overrun the task
/// is cancelled and abandoned.
@discardableResult
public func assertCompletes(within timeout: some WaitTime, _ message: @autoclosure () -> String = "",
                            reporter: FailureReporter = .swiftTesting,
                            sourceLocation: SourceLocation = #_sourceLocation,
                            _ operation: @escaping @Sendable () async -> Void) async -> Double? {
    await HarnessAssertions.completes(within: timeout.labSeconds, assertionCall(reporter, message(), sourceLocation), operation)
}

/// Records an issue naming the new threads when `block` adds `limit` threads or more (by
/// identity: threads that exist during the block and did not before it), or, with
/// `counting: .total`, when the sampled total reaches `limit`. Thread counts are
/// process-wide: Swift Testing runs tests in parallel, so put such tests in a `.serialized`
/// suite. Returns the sampled timeline.
@discardableResult
public func assertThreadPeak(staysUnder limit: Int, counting: ThreadCounting = .added, interval: Double = 0.002,
                             _ message: @autoclosure () -> String = "",
                             reporter: FailureReporter = .swiftTesting,
                             sourceLocation: SourceLocation = #_sourceLocation,
                             _ block: () throws -> Void) rethrows -> ThreadTimeline {
    try HarnessAssertions.threadPeak(staysUnder: limit, counting: counting, interval: interval,
                                     assertionCall(reporter, message(), sourceLocation), block)
}

/// `assertThreadPeak` for an async body.
@discardableResult
public func assertThreadPeak(staysUnder limit: Int, counting: ThreadCounting = .added, interval: Double = 0.002,
                             _ message: @autoclosure () -> String = "",
                             reporter: FailureReporter = .swiftTesting,
                             sourceLocation: SourceLocation = #_sourceLocation,
                             _ block: () async throws -> Void) async rethrows -> ThreadTimeline {
    try await HarnessAssertions.threadPeak(staysUnder: limit, counting: counting, interval: interval,
                                           assertionCall(reporter, message(), sourceLocation), block)
}

/// Records an issue unless the callback handed to `start` is called exactly once: the first
/// call within `timeout`, no second call within `grace` after it. Returns the first call.
@discardableResult
public func assertCalledExactlyOnce<Value: Sendable>(within timeout: some WaitTime = 1.0, grace: some WaitTime = 0.1,
                                                     _ message: @autoclosure () -> String = "",
                                                     reporter: FailureReporter = .swiftTesting,
                                                     sourceLocation: SourceLocation = #_sourceLocation,
                                                     _ start: (@escaping @Sendable (Value) -> Void) -> Void) -> CallProbe<Value>.Call? {
    HarnessAssertions.calledExactlyOnce(within: timeout.labSeconds, grace: grace.labSeconds,
                                        assertionCall(reporter, message(), sourceLocation), start)
}

/// `assertCalledExactlyOnce` for callbacks that take no value.
@discardableResult
public func assertCalledExactlyOnce(within timeout: some WaitTime = 1.0, grace: some WaitTime = 0.1,
                                    _ message: @autoclosure () -> String = "",
                                    reporter: FailureReporter = .swiftTesting,
                                    sourceLocation: SourceLocation = #_sourceLocation,
                                    _ start: (@escaping @Sendable () -> Void) -> Void) -> CallProbe<Void>.Call? {
    HarnessAssertions.calledExactlyOnce(within: timeout.labSeconds, grace: grace.labSeconds,
                                        assertionCall(reporter, message(), sourceLocation)) { (done: @escaping @Sendable (()) -> Void) in
        start { done(()) }
    }
}
