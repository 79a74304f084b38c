import Foundation

/// Where the running XCTest test bundle sits: the directory SwiftPM built the package's
/// products into (`swift test` builds every product), so tests can launch them as children.
///
/// Which test runner is hosting the tests is found at run time, not by platform: on Linux the
/// test bundle is itself the executable; on Darwin Xcode's `xctest` tool loads a `.xctest`
/// bundle (`XCTestRunner.runner`).
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
    /// The `.xctest` bundle that Darwin's `xctest` tool loaded, when that tool runs this
    /// process; `nil` when the test bundle is itself the executable (SwiftPM on Linux).
    static var loadedBundle: URL? {
        let executable = URL(fileURLWithPath: ChildProcess.currentExecutablePath()).lastPathComponent
        guard executable == "xctest" else { return nil }
        return Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }?.bundleURL
    }
}
