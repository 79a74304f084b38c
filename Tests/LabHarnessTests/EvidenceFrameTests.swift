import Foundation
import XCTest

/// A finding that reads stacks looks for a frame of the experiment by name ("threads waiting in
/// a semaphore, called from `RequestClient.callBlocking`"). In a release build the optimizer
/// inlines small functions into their callers, and the frame, with its name, is gone: the
/// finding is then "not judged" in the build users run for speed. Each function a finding names
/// is therefore declared `@inline(never)`, and this test reads the experiments' sources and
/// fails, naming file and line, for a `calledFrom:` name whose function is not.
final class EvidenceFrameTests: XCTestCase {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    func testEveryFrameAFindingNamesIsNeverInlined() throws {
        let files = Self.swiftFiles(under: "Experiments")
        let texts = try files.map { try String(contentsOfFile: $0, encoding: .utf8) }
        var named: [(site: String, type: String?, function: String)] = []
        for (file, text) in zip(files, texts) {
            let lines = text.components(separatedBy: "\n")
            for (index, line) in lines.enumerated() {
                var rest = Substring(line)
                while let range = rest.range(of: "calledFrom: ") {
                    rest = rest[range.upperBound...]
                    let site = "\(file):\(index + 1)"
                    guard let name = Self.resolve(argument: rest, in: text) else {
                        XCTFail(
                            "\(site): a finding names a frame the check cannot read (\(rest.prefix(40))); give it as a string literal or a local `let`"
                        )
                        continue
                    }
                    named.append((site, name.type, name.function))
                }
            }
        }
        XCTAssertFalse(named.isEmpty, "the experiments' findings name frames (RequestClient.callBlocking, at least)")
        for name in named {
            let declarations = zip(files, texts).flatMap { file, text in
                Self.declarations(of: name.function, inTypeNamed: name.type, file: file, text: text)
            }
            XCTAssertFalse(
                declarations.isEmpty,
                "\(name.site): no declaration of \(name.type.map { "\($0)." } ?? "")\(name.function) in Experiments")
            for declaration in declarations where !declaration.neverInlined {
                XCTFail(
                    "\(declaration.site): \(name.function) is named by a finding (\(name.site)) but not declared @inline(never): a release build may inline it away"
                )
            }
        }
    }

    /// The function (and type, when `\(Type.self)` names it) of a `calledFrom:` argument: a
    /// string literal, or a local constant holding one.
    static func resolve(argument: Substring, in text: String) -> (type: String?, function: String)? {
        var literal: Substring
        if argument.hasPrefix("\"") {
            literal = argument.dropFirst().prefix { $0 != "\"" }
        } else {
            let identifier = argument.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            guard !identifier.isEmpty, let range = text.range(of: "let \(identifier) = \"") else { return nil }
            literal = text[range.upperBound...].prefix { $0 != "\"" }
        }
        var type: String?
        if literal.hasPrefix("\\("), let close = literal.firstIndex(of: ")") {
            type = literal[literal.index(literal.startIndex, offsetBy: 2)..<close].replacingOccurrences(
                of: ".self", with: "")
            literal = literal[literal.index(after: close)...]
        }
        let function = literal.split(separator: ".").last.map(String.init) ?? ""
        return function.isEmpty ? nil : (type, function)
    }

    /// Declarations `func NAME(` in `text` (in a file that declares or extends `type`, when
    /// given), and whether an `@inline(never)` stands right above (or before) each.
    static func declarations(
        of function: String, inTypeNamed type: String?, file: String, text: String
    ) -> [(site: String, neverInlined: Bool)] {
        if let type,
            !["struct", "class", "enum", "extension", "actor"].contains(where: { text.contains("\($0) \(type)") })
        {
            return []
        }
        let lines = text.components(separatedBy: "\n")
        var found: [(String, Bool)] = []
        for (index, line) in lines.enumerated()
        where line.range(of: "func \(function)(") != nil || line.range(of: "func \(function)<") != nil {
            var above = index - 1
            while above >= 0, lines[above].trimmingCharacters(in: .whitespaces).hasPrefix("///") { above -= 1 }
            let attributes = (above >= 0 ? lines[above] : "") + " " + line
            found.append(("\(file):\(index + 1)", attributes.contains("@inline(never)")))
        }
        return found
    }

    static func swiftFiles(under relative: String) -> [String] {
        let url = root.appendingPathComponent(relative)
        guard let walk = FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil) else { return [] }
        return walk.compactMap { ($0 as? URL).flatMap { $0.pathExtension == "swift" ? $0.path : nil } }.sorted()
    }
}
