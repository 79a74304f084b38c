import Testing

/// `@Test(.leakChecked)`: when the body ends, every object it handed to `LeakChecked.track`
/// must be released within the grace period; each survivor is reported by label, as an issue
/// at the line where it was tracked, in `LeakCheck`'s words: `session was still alive 500 ms
/// after the check began (checked at MyTests.swift:12): 1 strong reference still holds it:
/// held by …` (the check's place is the test's own line).
///
/// ```swift
/// @Test(.leakChecked) func sessionGoesAway() {
///     let session = LeakChecked.track(Session(), "session")
///     session.start()
/// }
/// ```
///
/// A body that throws is checked too, and the error is rethrown after: a leak is still a leak,
/// and the code that threw is where one is likeliest (a `defer` that never ran, a half-built
/// owner). The error is alive during that check, so the message says the test threw first.
/// A cancelled test (`Test.cancel()`, or a cancelled run) is not checked: it was stopped before
/// its end on purpose, and an issue would turn it from cancelled into failed.
public struct LeakCheckedTrait: TestTrait, SuiteTrait, TestScoping {
    public var grace: Double

    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard !test.isSuite else { return try await function() }
        let check = LeakCheck()
        var thrown: (any Error)?
        do {
            try await LeakChecked.$current.withValue(check) {
                try await function()
            }
        } catch {
            thrown = error
        }
        if !Task.isCancelled {
            let ended = FailureSite(test.sourceLocation)
            let threw = thrown.map { " (the test threw \($0) first; the error was still held at the check)" } ?? ""
            let outcome = await check.check(within: grace)
            if let note = outcome.allowanceNote(budget: grace) { print("\(ended): note: \(note)") }
            for survivor in outcome.survivors {
                FailureReporter.swiftTesting.record(
                    survivor.failure(timeout: grace, checkedAt: ended, allowed: outcome.stallAllowance) + threw,
                    survivor.site ?? ended)
            }
        }
        if let thrown { throw thrown }
    }
}

extension Trait where Self == LeakCheckedTrait {
    /// Checks at the end of the test that everything given to `LeakChecked.track` was released
    /// within half a second.
    public static var leakChecked: Self { LeakCheckedTrait(grace: 0.5) }

    /// Checks at the end of the test that everything given to `LeakChecked.track` was released
    /// within `grace`.
    public static func leakChecked(grace: some WaitTime) -> Self { LeakCheckedTrait(grace: grace.labSeconds) }
}

/// The tracking function of the `.leakChecked` trait.
public enum LeakChecked {
    /// The check of the running `.leakChecked` test, if any.
    @TaskLocal public static var current: LeakCheck?

    /// Tracks `object` under `label` for the running `.leakChecked` test and returns it. Outside
    /// such a test it records an issue (a check that cannot run must not pass silently).
    @discardableResult
    public static func track<T: AnyObject>(
        _ object: T, _ label: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> T {
        guard let current else {
            FailureReporter.swiftTesting.record(
                "LeakChecked.track was called outside a test marked .leakChecked; nothing is checked",
                FailureSite(sourceLocation))
            return object
        }
        return current.track(object, label, site: FailureSite(sourceLocation))
    }
}
