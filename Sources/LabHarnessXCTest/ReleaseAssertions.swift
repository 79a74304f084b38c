/// Asserts that the object `make` returns is released within `timeout` once `make`'s own
/// references are gone. Fails with how long it waited; returns the seconds it took to go
/// (`nil` on failure). On the main thread the wait keeps the main queue draining, so an object
/// whose last owner is a `DispatchQueue.main.async` block is seen going.
///
/// ```swift
/// assertReleased(within: 1) {
///     let controller = Controller()
///     controller.start()          // stores closures, schedules work...
///     return controller
/// }
/// ```
///
/// In an async test the async form below is chosen, even for a closure that does not await.
@_disfavoredOverload
@discardableResult
public func assertReleased<T: AnyObject>(
    within timeout: some WaitTime = 1.0, _ message: @autoclosure () -> String = "",
    reporter: FailureReporter = .xctest,
    file: StaticString = #filePath, line: UInt = #line,
    fileID: StaticString = #fileID, column: UInt = #column,
    _ make: () -> T
) -> Double? {
    HarnessAssertions.released(
        within: timeout.labSeconds,
        assertionCall(reporter, message(), fileID: fileID, file: file, line: line, column: column), make)
}

/// `assertReleased(within:)` in an async test, whatever the closure: it runs on the caller's
/// actor (`isolation`), and the wait suspends instead of blocking, so in a `@MainActor` test
/// the main actor stays free for the tasks the object scheduled there. `await
/// assertReleased { ... }` with a plain closure reaches this form.
@discardableResult
public func assertReleased<T: AnyObject>(
    within timeout: some WaitTime = 1.0, _ message: @autoclosure () -> String = "",
    reporter: FailureReporter = .xctest,
    file: StaticString = #filePath, line: UInt = #line,
    fileID: StaticString = #fileID, column: UInt = #column,
    isolation: isolated (any Actor)? = #isolation,
    _ make: () async -> T
) async -> Double? {
    await HarnessAssertions.released(
        within: timeout.labSeconds,
        assertionCall(reporter, message(), fileID: fileID, file: file, line: line, column: column), make)
}

/// Asserts that `object` is released within `timeout` after this call sets it to `nil`.
@discardableResult
public func assertReleased<T: AnyObject>(
    _ object: inout T?, within timeout: some WaitTime = 1.0,
    _ message: @autoclosure () -> String = "",
    reporter: FailureReporter = .xctest,
    file: StaticString = #filePath, line: UInt = #line,
    fileID: StaticString = #fileID, column: UInt = #column
) -> Double? {
    HarnessAssertions.released(
        &object, within: timeout.labSeconds,
        assertionCall(reporter, message(), fileID: fileID, file: file, line: line, column: column))
}

/// Asserts that the object `make` returns is still alive `after` the given time: for
/// documenting a leak on purpose (a retain cycle a test wants to show).
@discardableResult
public func assertNotReleased<T: AnyObject>(
    after duration: some WaitTime = 0.2, _ message: @autoclosure () -> String = "",
    reporter: FailureReporter = .xctest,
    file: StaticString = #filePath, line: UInt = #line,
    fileID: StaticString = #fileID, column: UInt = #column,
    _ make: () -> T
) -> Bool {
    HarnessAssertions.notReleased(
        after: duration.labSeconds,
        assertionCall(reporter, message(), fileID: fileID, file: file, line: line, column: column), make)
}

extension LeakCheck {
    /// Tracks `object` under `label` (default: its type and a number) and returns it; if it
    /// survives `assertAllReleased`, the failure is recorded at this line.
    @discardableResult
    public func track<T: AnyObject>(
        _ object: T, _ label: String? = nil, file: StaticString = #filePath, line: UInt = #line,
        fileID: StaticString = #fileID, column: UInt = #column
    ) -> T {
        track(object, label, site: FailureSite(fileID: fileID, filePath: file, line: line, column: column))
    }

    /// Fails for every tracked object still alive after `timeout` (call it in `tearDown`), at
    /// the line that tracked it, saying how many strong references still hold it.
    public func assertAllReleased(
        within timeout: some WaitTime = 1.0, reporter: FailureReporter = .xctest,
        file: StaticString = #filePath, line: UInt = #line,
        fileID: StaticString = #fileID, column: UInt = #column
    ) {
        HarnessAssertions.allReleased(
            self, within: timeout.labSeconds,
            assertionCall(reporter, "", fileID: fileID, file: file, line: line, column: column))
    }
}
