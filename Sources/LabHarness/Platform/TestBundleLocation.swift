import Foundation

/// Where the running test bundle sits: the directory SwiftPM built the package's products into
/// (`swift test` builds every product), so tests can launch them as children.
///
/// Which kind of test process this is, is found at run time, not by platform: on Linux the test
/// bundle is itself the executable; on Darwin a host process (Xcode's `xctest` for XCTest,
/// SwiftPM's `swiftpm-testing-helper` for Swift Testing) loads a `.xctest` bundle directory.
public enum TestBundleLocation {
    /// The directory holding the package's built products.
    public static var productsDirectory: URL {
        if let bundle = XCTestRunner.loadedBundle {
            return bundle.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    }
}

/// The program running the tests.
enum XCTestRunner {
    /// The `.xctest` bundle directory a host process loaded (Darwin); `nil` when the test
    /// bundle is itself the executable (SwiftPM on Linux, where no loaded bundle is one).
    static var loadedBundle: URL? {
        Bundle.allBundles.first { bundle in
            var isDirectory: ObjCBool = false
            return bundle.bundlePath.hasSuffix(".xctest")
                && FileManager.default.fileExists(atPath: bundle.bundlePath, isDirectory: &isDirectory) && isDirectory.boolValue
        }?.bundleURL
    }

    /// Whether this process is Darwin's `xctest` tool, which takes `-XCTest` filters.
    static var isXCTestTool: Bool {
        URL(fileURLWithPath: ChildProcess.currentExecutablePath()).lastPathComponent == "xctest"
    }
}
