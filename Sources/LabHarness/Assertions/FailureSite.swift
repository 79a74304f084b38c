/// Where a failed assertion was written: the caller's line, as both test frameworks want it.
///
/// XCTest records a failure at a `StaticString` path and a line; Swift Testing at a
/// `SourceLocation` (file id, path, line, column). The site keeps all of them, so a failure can
/// be recorded in whichever framework is running the test.
public struct FailureSite: Sendable, CustomStringConvertible {
    /// `Module/File.swift`, as `#fileID` gives it.
    public var fileID: String
    /// The full path, as `#filePath` gives it.
    public var filePath: String
    public var line: Int
    public var column: Int
    /// The same path as XCTest wants it (`XCTFail` takes only a `StaticString`); `nil` when the
    /// site came from a runtime string (a Swift Testing `SourceLocation`).
    public var staticFilePath: StaticString?

    public init(fileID: String, filePath: String, line: Int, column: Int) {
        self.fileID = fileID
        self.filePath = filePath
        self.line = line
        self.column = column
        self.staticFilePath = nil
    }

    public init(fileID: StaticString, filePath: StaticString, line: UInt, column: UInt) {
        self.fileID = "\(fileID)"
        self.filePath = "\(filePath)"
        self.line = Int(line)
        self.column = Int(column)
        self.staticFilePath = filePath
    }

    /// `path:line:column`, the form compilers and editors jump to.
    public var description: String { "\(filePath):\(line):\(column)" }
}
