import Foundation

/// How to start this test process again, running one XCTest test only: the relaunch behind
/// closure child trials (`assertInChildProcess`).
public enum TestBinaryRelaunch {
    /// The executable and arguments that run the XCTest test `testClass/method` (where
    /// `testClass` is `Module.Class`) of the running test bundle.
    public static func command(testClass: String, method: String) -> (executable: String, arguments: [String]) {
        #if os(Linux)
        // SwiftPM's Linux test bundle is an executable that takes `Module.Class/method`.
        return (ChildProcess.currentExecutablePath(), ["\(testClass)/\(method)"])
        #else
        // Darwin: tests run in the `xctest` tool, which loads the bundle given last;
        // `-XCTest Class/method` selects the one test.
        let bundle = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }?.bundlePath ?? ""
        let unqualified = testClass.split(separator: ".").last.map(String.init) ?? testClass
        return (ChildProcess.currentExecutablePath(), ["-XCTest", "\(unqualified)/\(method)", bundle])
        #endif
    }
}
