import Testing

/// `@Test(.threadBudget(added: N))`: the test fails when its body adds N threads or more, by
/// identity (threads that exist while the body runs and did not before it). The failure names
/// the new threads. Thread counts are process-wide, and Swift Testing runs tests in parallel:
/// put such tests in a `.serialized` suite, or other tests' threads count against the budget.
public struct ThreadBudgetTrait: TestTrait, SuiteTrait, TestScoping {
    /// The body must add fewer threads than this.
    public var added: Int
    public var interval: Double
    /// Report the measured figure on a pass too (a line on stdout and a `threads.txt`
    /// attachment), to learn how far under the budget the body stayed.
    public var reportsPass: Bool = false
    var sourceLocation: SourceLocation

    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A suite-level trait scopes each test in it, not the suite as a whole.
        guard !test.isSuite else { return try await function() }
        let measurement = ThreadPeakMeasurement(interval: interval, stacksAt: added)
        do { try await function() } catch {
            _ = measurement.finish()
            throw error
        }
        let (timeline, appeared) = measurement.finish()
        let call = noting(
            reportsPass,
            AssertionCall(
                reporter: .swiftTesting, site: FailureSite(sourceLocation),
                message: "thread budget of \(test.name)"))
        if appeared.count >= added {
            call.fail(
                "the test body added \(NewThreadWatch.summary(appeared)); the budget was under \(added) (peak \(timeline.peak) threads in the process)"
                    + measurement.stacksText())
        } else {
            call.notePass(
                "the test body added \(NewThreadWatch.summary(appeared)), under the budget of \(added) (peak \(timeline.peak) threads in the process)"
            )
        }
    }
}

extension Trait where Self == ThreadBudgetTrait {
    /// Fails the test when its body adds `added` threads or more.
    /// With `reportsPass`, a pass reports the figure too (stdout and a `threads.txt` attachment).
    public static func threadBudget(
        added: Int, interval: Double = 0.002, reportsPass: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Self {
        ThreadBudgetTrait(added: added, interval: interval, reportsPass: reportsPass, sourceLocation: sourceLocation)
    }
}
