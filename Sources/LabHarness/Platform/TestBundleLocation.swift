import Foundation

/// Where the running XCTest test bundle sits: the directory SwiftPM built the package's
/// products into (`swift test` builds every product), so tests can launch them as children.
public enum TestBundleLocation {
    /// The directory holding the package's built products.
    public static var productsDirectory: URL {
        #if os(Linux)
        // The test bundle is itself an executable in the products directory.
        return URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        #else
        // On Darwin the tests run inside an .xctest bundle within the products directory.
        if let bundle = Bundle.allBundles.first(where: { $0.bundlePath.hasSuffix(".xctest") }) {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        #endif
    }
}
