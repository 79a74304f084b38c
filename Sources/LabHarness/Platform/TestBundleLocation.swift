import Foundation

/// Where the running test bundle sits: the directory SwiftPM built the package's products into
/// (`swift test` builds every product), so tests can launch them as children.
///
/// Which kind of test process this is, is found at run time, not by platform: on Linux the test
/// bundle is itself the executable; on Darwin a host process (Xcode's `xctest` for XCTest,
/// SwiftPM's `swiftpm-testing-helper` for Swift Testing) loads a `.xctest` bundle directory.
public enum TestBundleLocation {
    /// The `.xctest` bundle directory a host process loaded the tests from (Darwin); `nil` where
    /// the test bundle is itself the executable (Linux) or this is no test process.
    public static var loadedBundle: URL? { XCTestRunner.loadedBundle }

    /// Whether `path` names the executable of a package's tests on Linux: `PPackageTests.xctest`
    /// from SwiftPM's native build system (the tests are in it), `PTests-test-runner` from its
    /// swiftbuild build system (one a test target, loading the tests from `PTests.so` beside it;
    /// swift-package-manager's `BuildParameters.testBinaryRelativePath(forTestProductName:)`).
    /// swiftbuild is the default on SwiftPM's main branch since 2026-03-22 ("Update default build
    /// system to swiftbuild"); `swift test --build-system swiftbuild` asks Swift 6.3 for it.
    public static func isTestBinary(_ path: String) -> Bool {
        path.hasSuffix(".xctest") || path.hasSuffix("-test-runner")
    }

    /// Whether the program at `path` runs a package's tests: a test binary (`isTestBinary`), or
    /// on Darwin a host that loads the bundle, Xcode's `xctest` tool or SwiftPM's
    /// `swiftpm-testing-helper`. The harness (whether XCTest may be running tests on this
    /// process's main thread) and `lab watch` (which processes of a tree are tests) both ask it.
    public static func isTestProcess(_ path: String) -> Bool {
        isTestBinary(path) || path.hasSuffix("/xctest") || path.hasSuffix("swiftpm-testing-helper")
    }

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
    /// The `.xctest` bundle directory that holds the test code (Darwin, where a host process,
    /// Xcode's `xctest` or SwiftPM's `swiftpm-testing-helper`, loads the bundle's binary from
    /// `X.xctest/Contents/MacOS/X`); `nil` when the test bundle is itself the executable
    /// (SwiftPM on Linux, whose `X.xctest` is a file). Found from the image that holds the
    /// harness's code (`dladdr` on `#dsohandle`: the test binary, which links the harness
    /// statically), not from `Bundle.allBundles`, which `swiftpm-testing-helper` does not fill.
    static var loadedBundle: URL? {
        guard let image = HostPlatform.imagePath(containing: #dsohandle) else { return nil }
        var url = URL(fileURLWithPath: image).standardizedFileURL
        while url.pathComponents.count > 1 {
            var isDirectory: ObjCBool = false
            if url.pathExtension == "xctest",
                FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue
            {
                return url
            }
            url.deleteLastPathComponent()
        }
        return nil
    }

    /// Whether this process is Darwin's `xctest` tool, which takes `-XCTest` filters.
    static var isXCTestTool: Bool {
        URL(fileURLWithPath: ChildProcess.currentExecutablePath()).lastPathComponent == "xctest"
    }
}
