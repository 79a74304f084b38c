/// Where the harness's assertions send a failure.
///
/// `LabHarnessXCTest` and `LabHarnessTesting` each give a default that records in their test
/// framework (and in the other one, or on stderr, when that is what is running); tests of
/// tests pass a `RecordingReporter`'s reporter. Every assertion calls its reporter on the
/// thread that called the assertion, before the assertion returns, and never from anywhere
/// else: that is what makes `unchecked(_:)` safe in single-threaded use.
public struct FailureReporter: Sendable {
    /// Records one failure: its message and the caller's site.
    public var record: @Sendable (_ message: String, _ site: FailureSite) -> Void

    public init(record: @escaping @Sendable (_ message: String, _ site: FailureSite) -> Void) {
        self.record = record
    }

    /// A reporter from a closure that need not be `@Sendable` (one that appends to a local
    /// array, say). Safe as long as the assertions using it are called from one thread at a
    /// time, because a reporter only ever runs on the assertion's calling thread, before the
    /// assertion returns. Do not hand it to code that asserts from several threads at once.
    public static func unchecked(
        _ record: @escaping (_ message: String, _ site: FailureSite) -> Void
    ) -> FailureReporter {
        let box = UncheckedRecorder(record)
        return FailureReporter { message, site in box.record(message, site) }
    }
}

/// Carries a non-`Sendable` closure into a `@Sendable` one; see `FailureReporter.unchecked`.
private final class UncheckedRecorder: @unchecked Sendable {
    // Called only on the asserting thread, synchronously (the reporter's contract), so the
    // closure is never run concurrently.
    let record: (String, FailureSite) -> Void
    init(_ record: @escaping (String, FailureSite) -> Void) { self.record = record }
}
