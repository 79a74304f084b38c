import Foundation
import XCTest

/// Every Swift line of the repository fits in `limit` columns, so a file reads on a projector
/// and in a side-by-side diff without scrolling.
///
/// Two things may run past the limit, because breaking them would not help a reader: the text
/// of a string literal (a sentence the lab prints, kept whole so it can be found with grep) and
/// a URL. Interpolated code inside a string counts like any other code, so a sentence that
/// computes its figures inline still has to be split: compute them first, then write the
/// sentence. `swift format -i -r Sources Experiments Tests` (the repository's `.swift-format`)
/// wraps most lines; the rest are split by hand.
final class SourceColumnsTests: XCTestCase {
    static let limit = 120
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    private static let folders = ["Sources", "Experiments", "Tests", "notes/programs"]
    private static let files = ["Package.swift"]

    func testEverySwiftLineFitsTheColumnLimit() throws {
        var long: [String] = []
        for path in try Self.swiftFiles() {
            let text = try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
            for (number, line) in Self.codeLines(text) where Self.columns(line) > Self.limit {
                long.append("\(path):\(number): \(line.count) columns")
            }
        }
        XCTAssert(long.isEmpty, "lines over \(Self.limit) columns:\n" + long.joined(separator: "\n"))
    }

    /// The rule's own cases: a long sentence passes, long code does not, nor long interpolated code.
    func testTheRuleExceptsStringTextAndURLsButNotCode() {
        let text = String(repeating: "x", count: 130)
        XCTAssertLessThanOrEqual(Self.columns("let s = \"\(text)\""), Self.limit)
        XCTAssertLessThanOrEqual(Self.columns("// see https://example.com/\(text)"), Self.limit)
        XCTAssertGreaterThan(Self.columns("let \(text) = 1"), Self.limit)
        XCTAssertGreaterThan(Self.columns("let s = \"a \\(\(text)) b\""), Self.limit)
        XCTAssertGreaterThan(Self.columns("// \(text)"), Self.limit)
        XCTAssertEqual(Array(Self.codeLines("a\n\"\"\"\n\(text)\n\"\"\"\nb")).map(\.0), [1, 2, 4, 5])
    }

    /// Tracked Swift files under the folders, relative to the root; build folders are skipped.
    private static func swiftFiles() throws -> [String] {
        var found = files
        for folder in folders {
            let base = root.appendingPathComponent(folder)
            guard let walk = FileManager.default.enumerator(atPath: base.path) else { continue }
            for case let relative as String in walk
            where relative.hasSuffix(".swift") && !relative.split(separator: "/").contains(where: { $0.hasPrefix(".") })
            {
                found.append(folder + "/" + relative)
            }
        }
        return found.sorted()
    }

    /// Numbered lines outside multi-line string literals (whose lines are all string text).
    private static func codeLines(_ text: String) -> some Sequence<(Int, String)> {
        var inMultiline = false
        return text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap {
            index, line -> (Int, String)? in
            let fences = line.components(separatedBy: "\"\"\"").count - 1
            defer { if fences % 2 == 1 { inMultiline.toggle() } }
            return inMultiline && fences == 0 ? nil : (index + 1, String(line))
        }
    }

    /// The line's width with the text of its string literals and its URLs taken out
    /// (interpolations `\( ... )` kept).
    static func columns(_ line: String) -> Int {
        guard line.count > limit else { return line.count }
        var kept = "", inString = false, depth = 0
        var characters = Array(line)[...]
        while let c = characters.popFirst() {
            if inString && depth == 0 {
                if c == "\\", characters.first == "(" {
                    characters.removeFirst()
                    kept += "\\("
                    depth = 1
                } else if c == "\\" {
                    _ = characters.popFirst()
                } else if c == "\"" {
                    inString = false
                    kept.append(c)
                }
                continue
            }
            if depth > 0 {
                if c == "(" { depth += 1 } else if c == ")" { depth -= 1 }
                kept.append(c)
                continue
            }
            if c == "/", characters.first == "/" {
                kept += "/" + characters
                break
            }
            if c == "\"" { inString = true }
            kept.append(c)
        }
        let urls = kept.ranges(of: #/https?://\S+/#).reduce(0) { $0 + kept[$1].count }
        return kept.count - urls
    }
}
