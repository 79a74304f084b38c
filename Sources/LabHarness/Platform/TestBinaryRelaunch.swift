import Foundation

/// How to start this test process again, running one XCTest test only: the relaunch behind
/// closure child trials (`assertInChildProcess`).
public enum TestBinaryRelaunch {
    /// The executable and arguments that run the XCTest test `testClass/method` (where
    /// `testClass` is `Module.Class`) of the running test bundle.
    ///
    /// - SwiftPM's Linux test bundle is an executable that takes `Module.Class/method`.
    /// - Darwin's `xctest` tool loads the bundle given last and runs the tests named after
    ///   `-XCTest`, in the same `Module.Class/method` form SwiftPM passes it for
    ///   `swift test --filter` (swift-package-manager's `TestRunner` and `UnitTest.specifier`):
    ///   a Swift test class is known to the Objective-C runtime by its module-qualified name.
    public static func command(testClass: String, method: String) -> (executable: String, arguments: [String]) {
        let executable = ChildProcess.currentExecutablePath()
        if XCTestRunner.isXCTestTool, let bundle = XCTestRunner.loadedBundle {
            return (executable, ["-XCTest", "\(testClass)/\(method)", bundle.path])
        }
        return (executable, ["\(testClass)/\(method)"])
    }
}
