import XCTest

/// Where the lab's assertions send a failure. XCTest by default; tests of the assertions
/// themselves (and users of other test frameworks) pass their own.
public struct FailureReporter: Sendable {
    public var fail: @Sendable (_ message: String, _ file: StaticString, _ line: UInt) -> Void

    public init(fail: @escaping @Sendable (_ message: String, _ file: StaticString, _ line: UInt) -> Void) {
        self.fail = fail
    }

    /// `XCTFail` at the caller's file and line.
    public static let xctest = FailureReporter { message, file, line in
        XCTFail(message, file: file, line: line)
    }
}
