import Synchronization

/// A reporter that keeps failures instead of failing the test: for tests of tests (checking
/// that an assertion fails, with which message, at which line).
///
/// ```swift
/// let recorder = RecordingReporter()
/// assertReleased(within: 0.2, reporter: recorder.reporter) { leakyObject() }
/// XCTAssertEqual(recorder.failures.first?.site.line, #line - 1)
/// ```
public final class RecordingReporter: Sendable {
    /// One recorded failure.
    public struct Failure: Sendable {
        public var message: String
        public var site: FailureSite
    }

    private let storage = Mutex<[Failure]>([])

    public init() {}

    /// Every failure so far, in order.
    public var failures: [Failure] { storage.withLock { $0 } }
    /// Their messages.
    public var messages: [String] { failures.map(\.message) }

    /// The reporter to pass to an assertion.
    public var reporter: FailureReporter {
        FailureReporter { [self] message, site in storage.withLock { $0.append(Failure(message: message, site: site)) }
        }
    }

    /// Forgets what was recorded.
    public func reset() { storage.withLock { $0.removeAll() } }
}
