import Foundation
@testable import LabHarness
import XCTest

/// Every operating-system call that differs between Linux and Darwin lives in the C shim
/// (`Sources/CLabSupport`), which `.ci/darwin-headers` compiles against Darwin's headers; Swift
/// keeps no platform branch that holds code, only import lines, so there is no Swift written
/// against an SDK nobody here can compile. This reads the repository's sources and fails,
/// naming file and line, for any `#if os(...)` / `#if canImport(Darwin|Glibc|Musl)` block that
/// holds more than imports, outside the listed exceptions (each named in the README with its
/// reason).
final class PlatformSeamTests: XCTestCase {
    /// The exceptions, at most two, each named in the README. None is left: the last one,
    /// CoreFoundation's default run-loop mode, is now made from Foundation's name for it
    /// (`RunLoopMode.swift`).
    static let exceptions: Set<String> = []
    /// The folders whose Swift files are checked (tests too: a test that compiles a case out
    /// on one platform passes there in silence; it should skip at run time, with a reason).
    private static let checkedFolders = ["Sources", "Experiments", "Tests"]

    /// The repository's root: this file is `Tests/LabHarnessTests/PlatformSeamTests.swift`.
    private static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// Whether `line` opens a block on the platform (`#if os(`, `#if canImport(Darwin` ...).
    static func opensPlatformBlock(_ line: Substring) -> Bool {
        let code = line.trimmingCharacters(in: .whitespaces)
        guard code.hasPrefix("#if ") || code.hasPrefix("#if\t") else { return false }
        return code.contains("os(") || ["Darwin", "Glibc", "Musl"].contains { code.contains("canImport(\($0))") }
    }

    /// `file:line: text` for each platform block of `text` that holds a line other than an
    /// import, a comment or a nested directive (the same rule as the before-stop hook).
    static func platformBlocksWithCode(in text: String, file: String) -> [String] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var found: [String] = []
        var index = 0
        while index < lines.count {
            defer { index += 1 }
            guard opensPlatformBlock(lines[index]) else { continue }
            let start = index
            var depth = 0
            var holdsCode = false
            while index < lines.count {
                let code = lines[index].trimmingCharacters(in: .whitespaces)
                if code.hasPrefix("#if") {
                    depth += 1
                } else if code.hasPrefix("#endif") {
                    depth -= 1; if depth == 0 { break }
                } else if index > start, !code.isEmpty, !code.hasPrefix("#else"), !code.hasPrefix("#elseif"),
                    !code.hasPrefix("//"),
                    !isImport(code)
                {
                    holdsCode = true
                }
                index += 1
            }
            if holdsCode { found.append("\(file):\(start + 1): \(lines[start].trimmingCharacters(in: .whitespaces))") }
        }
        return found
    }

    private static func isImport(_ code: String) -> Bool {
        var rest = Substring(code)
        for attribute in ["@_exported ", "@preconcurrency "] where rest.hasPrefix(attribute) {
            rest = rest.dropFirst(attribute.count)
        }
        return rest.hasPrefix("import ")
    }

    func testNoSwiftFileHasAPlatformBranchHoldingCodeBeyondTheListedExceptions() throws {
        let root = Self.repositoryRoot
        var checked = 0
        var found: [String] = []
        for folder in Self.checkedFolders {
            let base = root.appendingPathComponent(folder)
            let files = try XCTUnwrap(
                FileManager.default.subpathsOfDirectory(atPath: base.path) as [String]?, "\(base.path) is readable")
            for relative in files.sorted() where relative.hasSuffix(".swift") && !relative.contains(".build") {
                let path = "\(folder)/\(relative)"
                if Self.exceptions.contains(path) { continue }
                let text = try String(contentsOf: base.appendingPathComponent(relative), encoding: .utf8)
                found += Self.platformBlocksWithCode(in: text, file: path)
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 50, "the sources were found under \(root.path)")
        XCTAssertEqual(
            found, [],
            """
            platform branches holding code (move the OS call into the C shim, Sources/CLabSupport, \
            with one C signature for both platforms):
            \(found.joined(separator: "\n"))
            """)
    }

    /// Each exception exists, holds a platform block, and is named in the README's "On a Mac"
    /// section with its reason; there are at most two.
    func testTheExceptionsAreFewAndListedInTheReadme() throws {
        XCTAssertLessThanOrEqual(Self.exceptions.count, 2)
        let root = Self.repositoryRoot
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        for path in Self.exceptions {
            let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
            XCTAssertEqual(Self.platformBlocksWithCode(in: text, file: path).count, 1, "\(path) is still an exception")
            XCTAssertTrue(readme.contains(URL(fileURLWithPath: path).lastPathComponent), "the README lists \(path)")
        }
    }

    /// The check itself: it sees every spelling of a platform block holding code, and passes
    /// blocks of imports and other conditions. (The sample is built from an array so that no
    /// line of this file starts with a platform directive.)
    func testTheCheckFindsEveryBlockHoldingCodeAndNothingElse() {
        let sample = [
            "#if os(Linux)",  // 1: code
            "let a = 1",
            "#elseif canImport(Darwin)",
            "import Darwin",
            "#endif",
            "#if canImport(FoundationNetworking)",  // 6: imports only
            "@_exported import FoundationNetworking",
            "#endif",
            "  #if !os(macOS)",  // 9: code, nested directive inside
            "  #if DEBUG",
            "  #endif",
            "  f()",
            "  #endif",
            "#if DEBUG",  // 14: not a platform block
            "let b = 2",
            "#endif",
            "#if canImport(Glibc)",  // 17: imports and comments only
            "// a comment",
            "import Glibc",
            "#endif",
            "// #if os(Linux) in a comment",
            "#if canImport(Darwin)",  // 22: code
            "let c = 3",
            "#endif",
        ].joined(separator: "\n")
        XCTAssertEqual(
            Self.platformBlocksWithCode(in: sample, file: "X.swift").map { $0.split(separator: ":")[1] },
            ["1", "9", "22"])
    }

    /// The workflow that builds and tests the lab on Linux and macOS runs the README's two
    /// commands on both; the repository's own CI (`.ci/run`) never runs it, and it does run the
    /// Darwin header check of the C shim.
    func testTheLinuxAndMacOSWorkflowRunsTheReadmeCommandsOnBoth() throws {
        let root = Self.repositoryRoot
        let workflow = try String(contentsOf: root.appendingPathComponent(".github/workflows/ci.yml"), encoding: .utf8)
        for runner in ["ubuntu-", "macos-"] {
            XCTAssertTrue(workflow.contains("runs-on: \(runner)"), "a job runs on \(runner)")
        }
        for command in ["run: swift run exp-runloop", "run: swift test"] {
            XCTAssertEqual(workflow.components(separatedBy: command).count - 1, 2, "\(command) in both jobs")
        }
        let ci = try String(contentsOf: root.appendingPathComponent(".ci/run"), encoding: .utf8)
        XCTAssertFalse(ci.contains(".github"), ".ci/run does not run the GitHub workflow")
        XCTAssertTrue(ci.contains(".ci/darwin-headers"), ".ci/run compiles the C shim against Darwin's headers")
    }

    /// The relaunch behind closure child trials takes the form of the test process found at run
    /// time: Darwin's `xctest` tool gets `-XCTest Module.Class/method` and the bundle; a test
    /// bundle that is itself the executable (Linux) gets `Module.Class/method`.
    func testTheRelaunchFormFollowsTheTestProcessFoundAtRunTime() throws {
        let command = TestBinaryRelaunch.command(testClass: "Module.Case", method: "testOne")
        XCTAssertEqual(command.executable, ChildProcess.currentExecutablePath())
        if XCTestRunner.isXCTestTool {
            let bundle = try XCTUnwrap(XCTestRunner.loadedBundle, "xctest loaded a bundle")
            XCTAssertEqual(command.arguments, ["-XCTest", "Module.Case/testOne", bundle.path])
        } else {
            XCTAssertEqual(command.arguments, ["Module.Case/testOne"])
        }
        if PlatformInfo.current.isLinux {
            XCTAssertNil(XCTestRunner.loadedBundle, "on Linux no loaded bundle is a .xctest directory")
            XCTAssertEqual(
                TestBundleLocation.productsDirectory.path,
                URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
                    .path)
        }
    }

    /// The test bundle is found from the binary that holds the test code (`dladdr` on
    /// `#dsohandle`), not from `Bundle.allBundles`, which `swiftpm-testing-helper` does not fill
    /// on a Mac: here, where the test bundle is itself the executable, that binary is this
    /// process's executable (a library beside it with swiftbuild's runner); where a host loaded
    /// a bundle, it lies inside the bundle.
    func testTheTestBundleIsFoundFromTheBinaryHoldingTheTests() throws {
        let image = try XCTUnwrap(HostPlatform.imagePath(containing: #dsohandle), "dladdr names the test binary")
        let resolved = URL(fileURLWithPath: image).resolvingSymlinksInPath().path
        if let bundle = TestBundleLocation.loadedBundle {
            XCTAssertTrue(
                resolved.hasPrefix(bundle.resolvingSymlinksInPath().path + "/"), "\(resolved) in \(bundle.path)")
            XCTAssertEqual(TestBundleLocation.productsDirectory.path, bundle.deletingLastPathComponent().path)
        } else {
            let executable = URL(fileURLWithPath: ChildProcess.currentExecutablePath()).resolvingSymlinksInPath()
            if executable.lastPathComponent.hasSuffix("-test-runner") {
                // SwiftPM's swiftbuild build system: a runner loads the tests from a library
                // beside it (`LabHarnessTests.so`), in the products' directory.
                XCTAssertEqual(
                    URL(fileURLWithPath: resolved).deletingLastPathComponent().path,
                    executable.deletingLastPathComponent().path)
                XCTAssertEqual(TestBundleLocation.productsDirectory.path, executable.deletingLastPathComponent().path)
            } else {
                XCTAssertEqual(resolved, executable.path)
            }
        }
    }

    /// The manifest's tools version covers the newest API the tests use: exit tests
    /// (`#expect(processExitsWith:)`) came with Swift 6.2.
    func testTheToolsVersionCoversExitTests() throws {
        let manifest = try String(
            contentsOf: Self.repositoryRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        let first = try XCTUnwrap(manifest.split(separator: "\n").first)
        let version = try XCTUnwrap(first.split(separator: ":").last, "\(first)")
            .trimmingCharacters(in: .whitespaces).split(separator: ".").compactMap { Int($0) }
        XCTAssertTrue(first.hasPrefix("// swift-tools-version:"), "\(first)")
        XCTAssertTrue(version.lexicographicallyPrecedes([6, 2]) == false, "tools version \(version) is at least 6.2")
    }
}
