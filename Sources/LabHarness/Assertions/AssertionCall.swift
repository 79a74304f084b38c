/// One call of an assertion: where it was written, the caller's extra message, and where its
/// failure goes. The assertions in `HarnessAssertions` report through it, so `LabHarnessXCTest`
/// and `LabHarnessTesting` differ only in the reporter and site they build.
public struct AssertionCall: Sendable {
    public var reporter: FailureReporter
    public var site: FailureSite
    /// The caller's own words, appended to the failure after a colon.
    public var message: String
    /// Where a passing measurement is reported when the caller asked for it (a thread budget's
    /// figure, say); `nil`: a pass says nothing.
    public var note: (@Sendable (_ text: String, _ site: FailureSite) -> Void)?

    public init(reporter: FailureReporter, site: FailureSite, message: String = "") {
        self.reporter = reporter
        self.site = site
        self.message = message
    }

    /// Reports a passing measurement through `note`, if set.
    public func notePass(_ text: String) {
        note?(message.isEmpty ? text : "\(text): \(message)", site)
    }

    /// Records `text` (plus the caller's message) at the caller's site; where nothing can run
    /// the main run loop, with a note saying so (`MainRunLoopStandIn.unavailableReason`).
    public func fail(_ text: String) {
        let full = message.isEmpty ? text : "\(text): \(message)"
        guard let reason = MainRunLoopStandIn.unavailableReason else { return reporter.record(full, site) }
        reporter.record(
            full + " (note: \(reason): a Timer or perform on RunLoop.main never runs in this process; if the"
                + " code under test relies on one, check it under XCTest or deliver on DispatchQueue.main)", site)
    }
}
