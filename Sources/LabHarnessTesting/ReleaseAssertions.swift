import Testing

/// Records an issue at the caller's line unless the object `make` returns is released within
/// `timeout` once `make`'s own references are gone. Returns the seconds it took to go (`nil`
/// on failure). On the main thread the wait keeps the main queue draining.
///
/// ```swift
/// @Test func controllerIsReleased() {
///     assertReleased(within: .milliseconds(500)) { Controller().started() }
/// }
/// ```
///
/// In an async test (a `@MainActor` one too) the async form below is chosen, even for a
/// closure that does not await; this one is `noasync`, as Apple marks its own blocking waits,
/// so that a build on Linux and on a Mac both reject a wait that would hold the test's actor.
@available(*, noasync, message: "it blocks the caller's thread and actor for the whole wait; in async code use `await assertReleased(within:) { … }`")
@_disfavoredOverload
@discardableResult
public func assertReleased<T: AnyObject>(
    within timeout: some WaitTime = 1.0, _ message: @autoclosure () -> String = "",
    reporter: FailureReporter = .swiftTesting,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ make: () -> T
) -> Double? {
    HarnessAssertions.released(within: timeout.labSeconds, assertionCall(reporter, message(), sourceLocation), make)
}

/// `assertReleased(within:)` in an async test, whatever the closure: it runs on the caller's
/// actor (`isolation`), and the wait suspends instead of blocking, so in a `@MainActor` test
/// the main actor stays free for the tasks the object scheduled there. `await
/// assertReleased { ... }` with a plain closure reaches this form.
///
/// ```swift
/// @MainActor @Test func modelIsReleased() async {
///     await assertReleased(within: 0.5) { let model = Model(); model.refresh(); return model }
/// }
/// ```
@discardableResult
public func assertReleased<T: AnyObject>(
    within timeout: some WaitTime = 1.0, _ message: @autoclosure () -> String = "",
    reporter: FailureReporter = .swiftTesting,
    sourceLocation: SourceLocation = #_sourceLocation,
    isolation: isolated (any Actor)? = #isolation,
    _ make: () async -> T
) async -> Double? {
    await HarnessAssertions.released(
        within: timeout.labSeconds, assertionCall(reporter, message(), sourceLocation), make)
}

/// Records an issue unless `object` is released within `timeout` after this sets it to `nil`.
/// In an async test the async form below is chosen; this one is `noasync`.
@available(*, noasync, message: "it blocks the caller's thread and actor for the whole wait; in async code use `await assertReleased(&object, within:)`")
@discardableResult
public func assertReleased<T: AnyObject>(
    _ object: inout T?, within timeout: some WaitTime = 1.0,
    _ message: @autoclosure () -> String = "",
    reporter: FailureReporter = .swiftTesting,
    sourceLocation: SourceLocation = #_sourceLocation
) -> Double? {
    HarnessAssertions.released(&object, within: timeout.labSeconds, assertionCall(reporter, message(), sourceLocation))
}

/// `assertReleased(&object, within:)` in an async test: it runs on the caller's actor and the
/// wait suspends, so in a `@MainActor` test an object that a main-actor task or a main-queue
/// block releases is seen going (the synchronous form held the main actor, which on Linux is
/// the main queue, and reported it as a leak). An actor's own property cannot be passed
/// `inout` to an async call: move it to a local first.
///
/// ```swift
/// @MainActor @Test func modelIsReleased() async {
///     var model: Model? = Model()
///     model?.refresh()
///     await assertReleased(&model, within: 0.5)
/// }
/// ```
@discardableResult
public func assertReleased<T: AnyObject>(
    _ object: inout T?, within timeout: some WaitTime = 1.0,
    _ message: @autoclosure () -> String = "",
    reporter: FailureReporter = .swiftTesting,
    sourceLocation: SourceLocation = #_sourceLocation,
    isolation: isolated (any Actor)? = #isolation
) async -> Double? {
    await HarnessAssertions.released(
        &object, within: timeout.labSeconds, assertionCall(reporter, message(), sourceLocation))
}

/// Records an issue unless the object `make` returns is still alive `after` the given time:
/// documents a leak on purpose. In an async test the async form below is chosen; this one is
/// `noasync`.
@available(*, noasync, message: "it blocks the caller's thread and actor for the whole wait; in async code use `await assertNotReleased(after:) { … }`")
@_disfavoredOverload
@discardableResult
public func assertNotReleased<T: AnyObject>(
    after duration: some WaitTime = 0.2, _ message: @autoclosure () -> String = "",
    reporter: FailureReporter = .swiftTesting,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ make: () -> T
) -> Bool {
    HarnessAssertions.notReleased(after: duration.labSeconds, assertionCall(reporter, message(), sourceLocation), make)
}

/// `assertNotReleased(after:)` in an async test, whatever the closure: it runs on the caller's
/// actor and the wait suspends, so in a `@MainActor` test the main actor runs what the object
/// scheduled there, and an object those tasks release is an issue here (the synchronous form
/// held the main actor, and documented a leak that was not one).
@discardableResult
public func assertNotReleased<T: AnyObject>(
    after duration: some WaitTime = 0.2, _ message: @autoclosure () -> String = "",
    reporter: FailureReporter = .swiftTesting,
    sourceLocation: SourceLocation = #_sourceLocation,
    isolation: isolated (any Actor)? = #isolation,
    _ make: () async -> T
) async -> Bool {
    await HarnessAssertions.notReleased(
        after: duration.labSeconds, assertionCall(reporter, message(), sourceLocation), make)
}

extension LeakCheck {
    /// Tracks `object` under `label` (default: its type and a number) and returns it; if it
    /// survives `assertAllReleased`, the issue is recorded at this line.
    @discardableResult
    public func track<T: AnyObject>(
        _ object: T, _ label: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) -> T {
        track(object, label, site: FailureSite(sourceLocation))
    }

    /// Records an issue for every tracked object still alive after `timeout`, at the line that
    /// tracked it, saying how many strong references still hold it and, where it can see, what.
    /// In an async test the async form below is chosen; this one is `noasync`.
    @available(*, noasync, message: "it blocks the caller's thread and actor for the whole wait; in async code use `await check.assertAllReleased(within:)`")
    public func assertAllReleased(
        within timeout: some WaitTime = 1.0, reporter: FailureReporter = .swiftTesting,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        HarnessAssertions.allReleased(self, within: timeout.labSeconds, assertionCall(reporter, "", sourceLocation))
    }

    /// `assertAllReleased(within:)` in an async test: it runs on the caller's actor and the wait
    /// suspends, so in a `@MainActor` test the main actor runs the tasks and main-queue blocks
    /// that release what this check tracks (the synchronous form held it, and reported them).
    public func assertAllReleased(
        within timeout: some WaitTime = 1.0, reporter: FailureReporter = .swiftTesting,
        sourceLocation: SourceLocation = #_sourceLocation,
        isolation: isolated (any Actor)? = #isolation
    ) async {
        await HarnessAssertions.allReleased(
            self, within: timeout.labSeconds, assertionCall(reporter, "", sourceLocation))
    }
}
