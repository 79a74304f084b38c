@_exported import LabHarness
import LabHarnessRecording
@_exported import Testing  // its `#_sourceLocation` default arguments need the macro in the caller's file

extension FailureReporter {
    /// The default of every assertion in this module: an `Issue` at the caller's
    /// `SourceLocation` inside a Swift Testing test, `XCTFail` inside an XCTest test, stderr and
    /// a non-zero exit status anywhere else (see `FrameworkRecording`). Never silent.
    public static var swiftTesting: FailureReporter {
        FailureReporter { message, site in FrameworkRecording.record(message, at: site) }
    }
}

extension FailureSite {
    /// The site of a Swift Testing `SourceLocation`.
    public init(_ location: SourceLocation) {
        self.init(fileID: location.fileID, filePath: location.filePath, line: location.line, column: location.column)
    }
}

/// The call an assertion of this module reports through.
func assertionCall(_ reporter: FailureReporter, _ message: String, _ location: SourceLocation) -> AssertionCall {
    FrameworkRecording.prepare()
    return AssertionCall(reporter: reporter, site: FailureSite(location), message: message)
}
