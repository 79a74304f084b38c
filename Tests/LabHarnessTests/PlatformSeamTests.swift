import Foundation
import XCTest

/// Every platform branch of the lab's Swift code lives in `Sources/LabHarness/Platform/`, so the
/// Darwin side is a few files a Mac user can read and fix. This reads the repository's sources
/// and fails, naming file and line, for any `#if os(...)` or `#if canImport(...)` elsewhere.
final class PlatformSeamTests: XCTestCase {
    /// The one folder where platform branches belong (and the C shim, which is not Swift).
    private static let seamFolders = ["Sources/LabHarness/Platform/", "Sources/CLabSupport/"]
    /// The folders whose Swift files are checked (tests too: a test that compiles a case out
    /// on one platform passes there in silence; it should skip at run time, with a reason).
    private static let checkedFolders = ["Sources", "Experiments", "Tests"]
    /// The one branch a test may keep: importing the module that holds URLSession or XMLParser
    /// on Linux, which is how every Linux program imports them.
    private static let allowedInTests: Set<String> = ["#if canImport(FoundationNetworking)", "#if canImport(FoundationXML)"]

    /// The repository's root: this file is `Tests/LabHarnessTests/PlatformSeamTests.swift`.
    private static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// `file:line: text` for each line of `text` that branches on the platform.
    static func platformBranches(in text: String, file: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { index, line in
            let code = line.trimmingCharacters(in: .whitespaces)
            guard code.hasPrefix("#if") || code.hasPrefix("#elseif") else { return nil }
            guard code.contains("os(") || code.contains("canImport(") else { return nil }
            return "\(file):\(index + 1): \(code)"
        }
    }

    func testNoSwiftFileOutsideThePlatformFolderBranchesOnThePlatform() throws {
        let root = Self.repositoryRoot
        var checked = 0
        var found: [String] = []
        for folder in Self.checkedFolders {
            let base = root.appendingPathComponent(folder)
            let files = try XCTUnwrap(FileManager.default.subpathsOfDirectory(atPath: base.path) as [String]?, "\(base.path) is readable")
            for relative in files.sorted() where relative.hasSuffix(".swift") && !relative.contains(".build") {
                let path = "\(folder)/\(relative)"
                if Self.seamFolders.contains(where: { path.hasPrefix($0) }) { continue }
                // This file quotes every spelling of a branch as sample text for the check itself.
                if path.hasSuffix("/PlatformSeamTests.swift") { continue }
                let text = try String(contentsOf: base.appendingPathComponent(relative), encoding: .utf8)
                found += Self.platformBranches(in: text, file: path).filter { hit in
                    !(folder == "Tests" && Self.allowedInTests.contains { hit.hasSuffix(": \($0)") })
                }
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 50, "the sources were found under \(root.path)")
        XCTAssertEqual(found, [], """
            platform branches outside Sources/LabHarness/Platform/ (move them behind HostPlatform \
            or into a file of that folder):
            \(found.joined(separator: "\n"))
            """)
    }

    /// The check itself: it sees every spelling of a platform branch, and nothing else.
    func testTheCheckFindsEverySpellingOfAPlatformBranchAndNothingElse() {
        let sample = """
            #if os(Linux)
            #elseif canImport(Darwin)
              #if !os(macOS)
            #elseif os(Windows)
            #if canImport(FoundationNetworking)
            #if DEBUG
            #if compiler(>=6.0)
            // #if os(Linux) in a comment
            let os = "linux"
            """
        XCTAssertEqual(Self.platformBranches(in: sample, file: "X.swift"), [
            "X.swift:1: #if os(Linux)",
            "X.swift:2: #elseif canImport(Darwin)",
            "X.swift:3: #if !os(macOS)",
            "X.swift:4: #elseif os(Windows)",
            "X.swift:5: #if canImport(FoundationNetworking)",
        ])
    }

    /// The workflow that builds and tests the lab on Linux and macOS runs the README's two
    /// commands on both; the repository's own CI (`.ci/run`) never runs it.
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
    }
}
