import Foundation
import XCTest

/// The README's examples are compiled and run here word for word: each `swift` block under its
/// "### XCTest" and "### Swift Testing" headings must appear, line for line (indentation and
/// `import` lines aside), in the test file that holds it.
final class ReadmeSyncXCTests: XCTestCase {
    private static let here = URL(fileURLWithPath: "\(#filePath)")
    private static let readme = here.deletingLastPathComponent().appendingPathComponent("../../../../README.md")
        .standardized

    func testTheXCTestExampleIsTheOneCompiledHere() throws {
        try expectBlock(
            under: "### XCTest", in: Self.here.deletingLastPathComponent().appendingPathComponent("ReadmeXCTests.swift")
        )
    }

    func testTheSwiftTestingExampleIsTheOneCompiledHere() throws {
        try expectBlock(
            under: "### Swift Testing",
            in: Self.here.deletingLastPathComponent()
                .appendingPathComponent("../HarnessUserSwiftTests/ReadmeSwiftTests.swift").standardized)
    }

    private func expectBlock(under heading: String, in file: URL, line: UInt = #line) throws {
        let text = try String(contentsOf: Self.readme, encoding: .utf8)
        guard let start = text.range(of: heading + "\n\n```swift\n"),
            let end = text.range(of: "\n```\n", range: start.upperBound..<text.endIndex)
        else {
            return XCTFail("README.md has no swift block under \(heading)", line: line)
        }
        let block = Self.significant(String(text[start.upperBound..<end.lowerBound]))
        let compiled = Self.significant(try String(contentsOf: file, encoding: .utf8))
        let found = compiled.indices.contains { index in
            index + block.count <= compiled.count && Array(compiled[index..<index + block.count]) == block
        }
        XCTAssertTrue(
            found, "the README's block under \(heading) is not, line for line, in \(file.lastPathComponent)", line: line
        )
    }

    /// Lines without indentation, blank lines and imports.
    private static func significant(_ text: String) -> [String] {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("import ") }
    }
}
