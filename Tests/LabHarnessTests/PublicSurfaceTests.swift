import Foundation
import XCTest

/// LabHarness's public API is what others use: the experiments (`Experiments/exp-*`), the runner
/// (`Experiments/lab`), the helper libraries (the other `Sources/` targets), the tests and library
/// authors (`Tests/HarnessUser`, a separate package). This test lists every `public`/`open`
/// declaration of `Sources/LabHarness` that no Swift file outside that folder uses, and fails for
/// each one that is not in `allowed` (each entry with its reason); it also fails for an entry of
/// `allowed` that is no longer needed, so the list stays short. It prints the surface's counts.
///
/// The method is textual, not the compiler's:
/// - A declaration is a line whose code (comments and the text of string literals removed)
///   starts, after attributes, with `public` or `open`, any modifiers (`final`, `static`,
///   `mutating`, `private(set)` ...) and one of `struct class enum actor protocol typealias func
///   var let init subscript`; the cases of a public enum (which take its access) count too. Its
///   owner is the innermost type or extension around it, found by counting braces.
/// - Outside code is every Swift file under `Experiments/`, `Sources/` (but `Sources/LabHarness`)
///   and `Tests/` (with `Tests/HarnessUser`), comments removed, string literals' text removed
///   (their interpolations kept). A type is used when its name appears there as a word; a member
///   (`func var let case typealias`) when `.NAME` appears there (a call, a key path, an implicit
///   member) or a declaration `func|var|let|case NAME` (a conformance written outside); a
///   top-level function or constant when its name appears as a word; an `init` or `subscript`
///   when its owner's name appears (neither can be told by a name).
/// - A declaration named in the signature of a used one is used too (a public signature may
///   name only public declarations: the type a used function returns, the constant its default
///   argument reads), repeated until nothing changes. The signature is the declaration's lines
///   until its parentheses close, cut at its body's `{` (and a property's `=`).
///
/// Its limits:
/// - A member is matched by name alone, so a common name (`name`, `count`, `start`) is "used"
///   wherever any `.name` appears: the test errs towards "used", and finds unused members with
///   distinctive names, not every one. A member used outside only through implicit `self` (in
///   an extension or subclass written outside) is not seen: making it internal would not compile.
/// - Operators and the witnesses of standard protocols (`standardWitnesses`) are skipped: they
///   are used through the protocol. A protocol's requirements have no `public` of their own and
///   are not listed.
/// - A declaration is read from its first line only (`public let a, b` counts `a`); a brace in
///   an interpolation, a raw string (`#"..."#`) or an `#if` branch that opens a type twice can
///   misplace the owner (not the name).
/// - An `init` counts as used wherever its type is named, even if nobody outside calls it; a
///   name in a used signature marks every declaration of that name (overloads too).
final class PublicSurfaceTests: XCTestCase {
    /// Public declarations used by nobody outside the harness, kept public on purpose; keyed by
    /// `Owner.name` (`name` at the top level), each with its reason.
    static let allowed: [String: String] = [
        "LoopbackServerError.systemCall": "thrown by the public LoopbackServer.start; callers match every case",
        "LoopbackServerError.cannotStartThread": "thrown by the public LoopbackServer.start; callers match every case",
        "ThreadState.diskSleep": "a state the kernel reports (`D`); ThreadInfo.state maps every state it can read",
        "ThreadState.zombie": "a state the kernel reports (`Z`); ThreadInfo.state maps every state it can read",
    ]

    /// Witnesses of standard protocols: used through the protocol, never by name (an
    /// `appendInterpolation` through `"\(label: value)"`).
    static let standardWitnesses: Set<String> = [
        "description", "debugDescription", "hash", "encode", "makeIterator", "next", "rawValue", "errorDescription",
        "appendInterpolation",
    ]

    private static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    func testEveryPublicDeclarationOfTheHarnessIsUsedOutsideIt() throws {
        let root = Self.repositoryRoot
        let harness = root.appendingPathComponent("Sources/LabHarness")
        var declarations: [Surface.Declaration] = []
        for file in try Surface.swiftFiles(under: harness) {
            let relative = String(file.path.dropFirst(root.path.count + 1))
            declarations += Surface.declarations(in: try String(contentsOf: file, encoding: .utf8), file: relative)
        }
        XCTAssertGreaterThan(declarations.count, 100, "no public declarations found: did Sources/LabHarness move?")
        var outside = Surface.Uses()
        for top in ["Experiments", "Sources", "Tests"] {
            for file in try Surface.swiftFiles(under: root.appendingPathComponent(top))
            where !file.path.hasPrefix(harness.path + "/") && file.path != #filePath {
                outside.add(try String(contentsOf: file, encoding: .utf8))
            }
        }
        XCTAssertTrue(outside.words.contains("ExperimentDefinition"), "no outside code read: did Experiments/ move?")

        let used = Surface.used(declarations, by: outside)
        let listed = declarations.indices.filter {
            !declarations[$0].isOperator && !Self.standardWitnesses.contains(declarations[$0].name)
        }
        let unused = listed.filter { !used[$0] }.map { declarations[$0] }
        for declaration in unused where Self.allowed[declaration.key] == nil {
            XCTFail(
                """
                \(declaration.file):\(declaration.line): public \(declaration.kind) \(declaration.key) is used nowhere \
                outside Sources/LabHarness: make it internal (or remove it), or add it to PublicSurfaceTests.allowed \
                with the reason it stays public
                """)
        }
        let unusedKeys = Set(unused.map(\.key))
        for key in Self.allowed.keys.sorted() where !unusedKeys.contains(key) {
            XCTFail("PublicSurfaceTests.allowed lists \(key), which is now used outside the harness or gone: remove it")
        }
        let types = declarations.indices.filter { declarations[$0].isType }
        print(
            """
            LabHarness public surface: \(types.count) types, \(types.filter { !used[$0] }.count) used only \
            inside; \(declarations.count) declarations, \(unused.count) used nowhere outside \
            (\(Self.allowed.count) allowed), \(declarations.count - listed.count) operators and witnesses not listed
            """)
    }

    /// The reader on a small source: declarations, modifiers, owners, enum cases; comments,
    /// strings and non-public declarations ignored.
    func testTheSurfaceReaderFindsPublicDeclarations() {
        let source = #"""
            /// public struct Commented {}
            public struct Box<T>: Sendable {
                public static let limit = 3
                let hidden = "public var inString"
                @discardableResult public mutating func put(_ value: T) -> Bool { true }
                public private(set) var count: Int
                public init() { count = 0 }
                public enum Kind {
                    case a, b(Int, Int), c
                    indirect case d(Kind)
                    func f() { switch self { case .a: break; default: break } }
                }
            }
            extension Array {
                public func grade() -> Int { 0 }
                public static func == (l: Self, r: Self) -> Bool { true }
            }
            """#
        let found = Surface.declarations(in: source, file: "f.swift").map { "\($0.kind) \($0.key)" }
        XCTAssertEqual(
            found,
            [
                "struct Box", "let Box.limit", "func Box.put", "var Box.count", "init Box.init",
                "enum Box.Kind", "case Kind.a", "case Kind.b", "case Kind.c", "case Kind.d",
                "func Array.grade", "func Array.==",
            ])
        var uses = Surface.Uses()
        uses.add("let b = Box<Int>() // Kind.a\nprint(\"\\(b.count) .limit\")\nfunc put() {}")
        let byKey = Dictionary(
            Surface.declarations(in: source, file: "f.swift").map { ($0.key, $0) },
            uniquingKeysWith: { a, _ in a })
        let keys = ["Box", "Box.count", "Box.put", "Box.init", "Box.limit", "Kind.a", "Box.Kind"]
        XCTAssertEqual(keys.map { uses.uses(byKey[$0]!) }, [true, true, true, true, false, false, false])

        let signed = Surface.declarations(
            in: """
                public func make(limit: Int = Defaults.limit,
                                 _ body: (Part) -> Void) -> Made { Hidden() }
                public var made: Made = Other()
                public struct Made {}
                public struct Part {}
                public struct Hidden {}
                public struct Other {}
                public enum Defaults {
                    public static let limit = 1
                }
                """, file: "g.swift")
        XCTAssertEqual(signed[0].signature, ["public", "func", "Int", "Defaults", "limit", "Part", "Void", "Made"])
        var caller = Surface.Uses()
        caller.add("_ = make { _ in }")
        let used = Surface.used(signed, by: caller)
        XCTAssertEqual(
            signed.indices.filter { used[$0] }.map { signed[$0].key },
            ["make", "Made", "Part", "Defaults", "Defaults.limit"])
    }
}

/// A textual reader of Swift sources for `PublicSurfaceTests` (its limits are listed there).
enum Surface {
    struct Declaration {
        var file: String
        var line: Int
        var kind: String
        var name: String
        var owner: String?
        /// The words of its signature after its name (types, parameters, default values;
        /// not its body nor a property's initial value).
        var signature: Set<String> = []
        var key: String { owner.map { "\($0).\(name)" } ?? name }
        var isType: Bool { Surface.typeKinds.contains(kind) }
        var isOperator: Bool { !(name.first.map { $0.isLetter || $0 == "_" || $0 == "`" } ?? false) }
    }

    /// Names used by a body of code: words, `.member`s and names it declares.
    struct Uses {
        var words: Set<String> = []
        var members: Set<String> = []

        mutating func add(_ text: String) {
            for line in Surface.code(of: text) {
                let tokens = Surface.tokens(line)
                for (index, token) in tokens.enumerated() {
                    words.insert(token)
                    if index > 0, ["func", "var", "let", "case"].contains(tokens[index - 1]) { members.insert(token) }
                }
                var rest = Substring(line)
                while let dot = rest.firstIndex(of: ".") {
                    rest = rest[rest.index(after: dot)...]
                    // `.$name` is a property wrapper's projection (`$secondLookFloor.withValue`): a use.
                    if rest.first == "$" { rest = rest.dropFirst() }
                    let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                    if !name.isEmpty { members.insert(String(name)) }
                }
            }
        }

        func uses(_ declaration: Declaration) -> Bool {
            switch declaration.kind {
            case _ where declaration.isType: words.contains(declaration.name)
            case "init", "subscript": declaration.owner.map { words.contains($0) } ?? true
            case _ where declaration.owner == nil: words.contains(declaration.name)
            default: members.contains(declaration.name)
            }
        }
    }

    static let typeKinds: Set<String> = ["struct", "class", "enum", "actor", "protocol", "typealias"]
    static let memberKinds: Set<String> = ["func", "var", "let", "init", "subscript"]
    static let modifiers: Set<String> = [
        "final", "static", "class", "nonisolated", "mutating", "nonmutating", "convenience", "required", "override",
        "lazy", "indirect", "weak", "unowned", "private(set)", "internal(set)", "fileprivate(set)", "dynamic",
    ]
    static let accessLevels: Set<String> = ["public", "open", "package", "internal", "fileprivate", "private"]

    static func swiftFiles(under folder: URL) throws -> [URL] {
        guard
            let walker = FileManager.default.enumerator(
                at: folder, includingPropertiesForKeys: nil,
                options: [.skipsHiddenFiles])
        else { return [] }
        return walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
            .sorted { $0.path < $1.path }
    }

    /// Each line's code: comments removed, and the text of string literals (their
    /// interpolations kept, the quotes left as `""`).
    static func code(of text: String) -> [String] {
        var inBlockComment = 0, inMultilineString = false
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            let chars = Array(line)
            var out = "", i = 0
            func at(_ s: String) -> Bool { chars[i...].starts(with: s) }
            while i < chars.count {
                // Most characters start no pattern: they are passed over (or copied) without a
                // look at what follows them, the reader's cost in a debug build.
                let char = chars[i]
                let ordinary =
                    inMultilineString
                    ? char != "\"" && char != "\\"
                    : inBlockComment > 0 ? char != "*" && char != "/" : char != "/" && char != "\""
                if ordinary {
                    if !inMultilineString && inBlockComment == 0 { out.append(char) }
                    i += 1
                } else if inMultilineString {
                    if at("\"\"\"") {
                        inMultilineString = false; out += "\"\""; i += 3
                    } else if at("\\(") {
                        i = interpolation(chars, from: i + 1, into: &out)
                    } else {
                        i += 1
                    }
                } else if inBlockComment > 0 {
                    if at("*/") {
                        inBlockComment -= 1; i += 2
                    } else if at("/*") {
                        inBlockComment += 1; i += 2
                    } else {
                        i += 1
                    }
                } else if at("//") {
                    break
                } else if at("/*") {
                    inBlockComment = 1; i += 2
                } else if at("\"\"\"") {
                    inMultilineString = true; i += 3
                } else if chars[i] == "\"" {
                    out += "\""; i += 1
                    while i < chars.count, chars[i] != "\"" {
                        if chars[i] == "\\" && at("\\(") {
                            i = interpolation(chars, from: i + 1, into: &out)
                        } else {
                            i += chars[i] == "\\" ? 2 : 1
                        }
                    }
                    out += "\""; i += 1
                } else {
                    out.append(chars[i]); i += 1
                }
            }
            return out
        }
    }

    /// Copies the parenthesised interpolation starting at `from` (its `(`) into `out`; returns
    /// the index after its `)`.
    private static func interpolation(_ chars: [Character], from: Int, into out: inout String) -> Int {
        var depth = 0, i = from
        while i < chars.count {
            if chars[i] == "(" { depth += 1 } else if chars[i] == ")" { depth -= 1; if depth == 0 { return i + 1 } }
            out.append(chars[i] == "\"" ? " " : chars[i])
            i += 1
        }
        return i
    }

    /// The identifiers of a line of code, in order (`private(set)` kept whole).
    static func tokens(_ code: String) -> [String] {
        var tokens: [String] = [], current = ""
        for char in code {
            if char.isLetter || char.isNumber || char == "_" { current.append(char); continue }
            if !current.isEmpty { tokens.append(current); current = "" }
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens
    }

    /// The words of a declaration's head: attributes (with their arguments) dropped,
    /// `private(set)` kept whole, the rest split at spaces and before `(`, `<` and `:`.
    static func head(_ code: String) -> [String] {
        var words: [String] = [], current = "", depth = 0, inAttribute = false
        func flush() {
            if !current.isEmpty, !inAttribute { words.append(current) }
            current = ""
            inAttribute = false
        }
        for char in code {
            if depth > 0 {
                if char == "(" { depth += 1 } else if char == ")" { depth -= 1 }
                if !inAttribute { current.append(char) }
                continue
            }
            switch char {
            case "@": flush(); inAttribute = true
            case "(" where inAttribute: depth = 1
            case "(" where ["private", "internal", "fileprivate"].contains(current): depth = 1; current.append(char)
            case " ", "\t": flush()
            case "(", "<", ":", "{", ",":
                flush()
                if words.count < 8 { words.append(String(char)) }
            default: current.append(char)
            }
            if words.count >= 8 { break }
        }
        flush()
        return words
    }

    /// The kind and name of a type or extension a line opens, and whether it is public.
    private static func opensType(_ words: [String]) -> (kind: String, name: String)? {
        var i = 0
        while i < words.count, accessLevels.contains(words[i]) || modifiers.contains(words[i]) {
            if words[i] == "class", i + 1 < words.count, !memberKinds.contains(words[i + 1]) { break }
            i += 1
        }
        guard i + 1 < words.count, ["struct", "class", "enum", "actor", "protocol", "extension"].contains(words[i])
        else { return nil }
        return (words[i], String(words[i + 1].split(separator: ".").last ?? ""))
    }

    /// The words of the signature of the declaration that starts on `lines[start]`: its lines up
    /// to the end of one whose parentheses are balanced, cut at a `{` outside parentheses (a
    /// body) and, for a property, at an `=` outside them (its initial value).
    static func signature(_ lines: [String], from start: Int, kind: String) -> Set<String> {
        var text = "", parens = 0
        scan: for line in lines[start..<min(lines.count, start + 12)] {
            var previous: Character = " "
            for (offset, char) in line.enumerated() {
                if char == "(" { parens += 1 } else if char == ")" { parens -= 1 }
                let next = line.dropFirst(offset + 1).first ?? " "
                let assigns = char == "=" && previous != "=" && next != "=" && !"<>!".contains(previous)
                if parens == 0, char == "{" || (assigns && ["var", "let"].contains(kind)) { break scan }
                text.append(char)
                previous = char
            }
            text.append(" ")
            if parens <= 0 { break }
        }
        return signatureWords(text)
    }

    /// The words of a signature but its parameters' labels and names (`(_ value:`, `, within
    /// timeout:`), which name nothing.
    static func signatureWords(_ text: String) -> Set<String> {
        // A name in a `(` or `,` list followed by `:` (a dictionary's key type follows a `[`).
        let label = try! Regex(#"([(,]\s*)(?:\w+\s+)?\w+\s*:(?!:)"#)
        return Set(tokens(text.replacing(label) { match in match.output[1].substring ?? "" }))
    }

    /// Whether each declaration is used: by outside code, or named in the signature of one
    /// that is (a public signature may name only public declarations: a type it returns, a
    /// value its default argument reads), repeated until nothing changes.
    static func used(_ declarations: [Declaration], by outside: Uses) -> [Bool] {
        var used = declarations.map { outside.uses($0) }
        var changed = true
        while changed {
            changed = false
            var named: Set<String> = []
            for (declaration, isUsed) in zip(declarations, used) where isUsed {
                named.formUnion(declaration.signature)
            }
            for index in declarations.indices where !used[index] {
                let declaration = declarations[index]
                let name = ["init", "subscript"].contains(declaration.kind) ? declaration.owner : declaration.name
                if let name, named.contains(name) {
                    used[index] = true
                    changed = true
                }
            }
        }
        return used
    }

    /// The public and open declarations of one file, in order.
    static func declarations(in text: String, file: String) -> [Declaration] {
        struct Scope { var kind: String, name: String, isPublic: Bool, depth: Int }
        var found: [Declaration] = [], scopes: [Scope] = [], depth = 0
        var pending: Scope?
        let lines = code(of: text)
        for (index, code) in lines.enumerated() {
            let words = head(code)
            let owner = scopes.last
            if let access = words.first, access == "public" || access == "open" {
                var i = 1
                while i < words.count, modifiers.contains(words[i]) {
                    if words[i] == "class", i + 1 < words.count, !memberKinds.contains(words[i + 1]) { break }
                    i += 1
                }
                if i < words.count, typeKinds.contains(words[i]) || memberKinds.contains(words[i]) {
                    let kind = words[i]
                    let next = i + 1 < words.count ? words[i + 1].filter { $0 != "`" } : ""
                    let name = ["init", "subscript"].contains(kind) ? kind : next
                    var declaration = Declaration(
                        file: file, line: index + 1, kind: kind, name: name,
                        owner: owner?.name)
                    declaration.signature = signature(lines, from: index, kind: kind).subtracting([name])
                    found.append(declaration)
                }
            } else if let owner, owner.kind == "enum", owner.isPublic, depth == owner.depth {
                let trimmed = code.drop { $0 == " " || $0 == "\t" }
                let cases =
                    trimmed.hasPrefix("case ")
                    ? trimmed.dropFirst(5)
                    : trimmed.hasPrefix("indirect case ") ? trimmed.dropFirst(14) : nil
                if let cases {
                    var parts: [Substring] = [], start = cases.startIndex, parens = 0
                    for i in cases.indices {
                        switch cases[i] {
                        case "(": parens += 1
                        case ")": parens -= 1
                        case "," where parens == 0: parts.append(cases[start..<i]); start = cases.index(after: i)
                        default: break
                        }
                    }
                    parts.append(cases[start...])
                    for part in parts {
                        if let name = tokens(String(part)).first {
                            var declaration = Declaration(
                                file: file, line: index + 1, kind: "case", name: name,
                                owner: owner.name)
                            declaration.signature = signatureWords(String(part)).subtracting([name])
                            found.append(declaration)
                        }
                    }
                }
            }
            if let opened = opensType(words) {
                let isPublic = words.first == "public" || words.first == "open"
                pending = Scope(kind: opened.kind, name: opened.name, isPublic: isPublic, depth: 0)
            }
            for char in code {
                if char == "{" {
                    depth += 1
                    if var scope = pending { scope.depth = depth; scopes.append(scope); pending = nil }
                } else if char == "}" {
                    if scopes.last?.depth == depth { scopes.removeLast() }
                    depth -= 1
                }
            }
        }
        return found
    }
}
