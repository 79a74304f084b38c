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
/// In an async test the async form below is chosen, even for a closure that does not await;
/// this one is `noasync`, as Apple marks its own blocking waits (`wait(for:timeout:)`), so that
/// a build on Linux and on a Mac both reject a wait that would hold the test's actor.
@available(*, noasync, message: "it blocks the caller's thread and actor for the whole wait; in async code use `await assertReleased(within:) { … }`")
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

/// Asserts that `object` is released within `timeout` after this call sets it to `nil`. On the
/// main thread the wait keeps the main queue draining. In an async test the async form below
/// is chosen; this one is `noasync`.
@available(*, noasync, message: "it blocks the caller's thread and actor for the whole wait; in async code use `await assertReleased(&object, within:)`")
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

/// `assertReleased(&object, within:)` in an async test: it runs on the caller's actor and the
/// wait suspends, so in a `@MainActor` test an object that a main-actor task or a main-queue
/// block releases is seen going (the synchronous form held the main actor and reported it as a
/// leak). An actor's own property (a `@MainActor` test class's) cannot be passed `inout` to an
/// async call: move it to a local first (`var model = self.model; self.model = nil`).
///
/// ```swift
/// @MainActor func testModelIsReleased() async {
///     var model: Model? = Model()
///     model?.refresh()  // a main-actor task holds it briefly
///     await assertReleased(&model, within: 0.5)
/// }
/// ```
@discardableResult
public func assertReleased<T: AnyObject>(
    _ object: inout T?, within timeout: some WaitTime = 1.0,
    _ message: @autoclosure () -> String = "",
    reporter: FailureReporter = .xctest,
    file: StaticString = #filePath, line: UInt = #line,
    fileID: StaticString = #fileID, column: UInt = #column,
    isolation: isolated (any Actor)? = #isolation
) async -> Double? {
    await HarnessAssertions.released(
        &object, within: timeout.labSeconds,
        assertionCall(reporter, message(), fileID: fileID, file: file, line: line, column: column))
}

/// Asserts that the object `make` returns is still alive `after` the given time: for
/// documenting a leak on purpose (a retain cycle a test wants to show). In an async test the
/// async form below is chosen; this one is `noasync`.
@available(*, noasync, message: "it blocks the caller's thread and actor for the whole wait; in async code use `await assertNotReleased(after:) { … }`")
@_disfavoredOverload
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

/// `assertNotReleased(after:)` in an async test, whatever the closure: it runs on the caller's
/// actor and the wait suspends, so in a `@MainActor` test the main actor runs what the object
/// scheduled there, and an object those tasks release fails here (the synchronous form held the
/// main actor, and documented a leak that was not one).
@discardableResult
public func assertNotReleased<T: AnyObject>(
    after duration: some WaitTime = 0.2, _ message: @autoclosure () -> String = "",
    reporter: FailureReporter = .xctest,
    file: StaticString = #filePath, line: UInt = #line,
    fileID: StaticString = #fileID, column: UInt = #column,
    isolation: isolated (any Actor)? = #isolation,
    _ make: () async -> T
) async -> Bool {
    await HarnessAssertions.notReleased(
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
    /// the line that tracked it, saying how many strong references still hold it and, where it
    /// can see, what. On the main thread the wait keeps the main queue draining. In an async
    /// test (or `tearDown() async`) the async form below is chosen; this one is `noasync`.
    @available(*, noasync, message: "it blocks the caller's thread and actor for the whole wait; in async code use `await check.assertAllReleased(within:)`")
    public func assertAllReleased(
        within timeout: some WaitTime = 1.0, reporter: FailureReporter = .xctest,
        file: StaticString = #filePath, line: UInt = #line,
        fileID: StaticString = #fileID, column: UInt = #column
    ) {
        HarnessAssertions.allReleased(
            self, within: timeout.labSeconds,
            assertionCall(reporter, "", fileID: fileID, file: file, line: line, column: column))
    }

    /// `assertAllReleased(within:)` in an async test: it runs on the caller's actor and the wait
    /// suspends, so in a `@MainActor` test the main actor runs the tasks and main-queue blocks
    /// that release what this check tracks (the synchronous form held it, and reported them).
    public func assertAllReleased(
        within timeout: some WaitTime = 1.0, reporter: FailureReporter = .xctest,
        file: StaticString = #filePath, line: UInt = #line,
        fileID: StaticString = #fileID, column: UInt = #column,
        isolation: isolated (any Actor)? = #isolation
    ) async {
        await HarnessAssertions.allReleased(
            self, within: timeout.labSeconds,
            assertionCall(reporter, "", fileID: fileID, file: file, line: line, column: column))
    }
}
