import Foundation

/// Finds executables SwiftPM built next to the test bundle (`swift test` builds every product
/// of the package), so tests can launch them as child processes.
public enum BuiltProducts {
    /// The directory holding the package's built products.
    /// (Where that is differs between Linux and Darwin: `TestBundleLocation` knows.)
    public static var directory: URL {
        TestBundleLocation.productsDirectory
    }

    /// The path of the built executable `name`; throws (failing the test, never skipping it)
    /// when it is not there.
    public static func executable(_ name: String) throws -> String {
        let url = directory.appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw MissingProduct(name: name, directory: directory.path)
        }
        return url.path
    }

    public struct MissingProduct: Error, CustomStringConvertible {
        public var name: String
        public var directory: String
        public var description: String {
            "\(name) is not built in \(directory); `swift test` builds every product of the package"
        }
    }
}
