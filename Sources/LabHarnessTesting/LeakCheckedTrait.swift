import Testing

/// `@Test(.leakChecked)`: when the body ends, every object it handed to `LeakChecked.track`
/// must be released within the grace period; each survivor is reported by label, as an issue
/// at the line where it was tracked.
///
/// ```swift
/// @Test(.leakChecked) func sessionGoesAway() {
///     let session = LeakChecked.track(Session(), "session")
///     session.start()
/// }
/// ```
public struct LeakCheckedTrait: TestTrait, SuiteTrait, TestScoping {
    public var grace: Double

    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard !test.isSuite else { return try await function() }
        let check = LeakCheck()
        try await LeakChecked.$current.withValue(check) {
            try await function()
        }
        for survivor in await check.survivors(within: grace) {
            let site = survivor.site ?? FailureSite(fileID: "?", filePath: "?", line: 0, column: 0)
            FailureReporter.swiftTesting.record(
                "\(survivor.label) was not released within \(Format.seconds(grace)) of the end of the test: "
                    + HarnessAssertions.holders(survivor.strongReferences), site)
        }
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
