@_exported import LabHarness
import LabHarnessRecording

extension FailureReporter {
    /// The default of every assertion in this module: `XCTFail` at the caller's line inside an
    /// XCTest test, an `Issue` inside a Swift Testing test, stderr and a non-zero exit status
    /// anywhere else (see `FrameworkRecording`). Never silent.
    public static var xctest: FailureReporter {
        FailureReporter { message, site in FrameworkRecording.record(message, at: site) }
    }
}

/// The call an assertion of this module reports through.
func assertionCall(
    _ reporter: FailureReporter, _ message: String, fileID: StaticString, file: StaticString,
    line: UInt, column: UInt
) -> AssertionCall {
    FrameworkRecording.prepare()
    return AssertionCall(
        reporter: reporter, site: FailureSite(fileID: fileID, filePath: file, line: line, column: column),
        message: message)
}
