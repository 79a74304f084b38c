import Foundation
import LabHarness

/// A `swift test` command line, understood well enough to list its tests and to run again only
/// the ones that had not run: `swift test list` takes the build options but not the test ones,
/// and a run of chosen tests is the same command with `--filter` for each (SwiftPM's filters
/// reach XCTest and Swift Testing alike).
public struct SwiftTestInvocation: Sendable, Equatable {
    /// The `swift` program as given (`swift`, `/usr/bin/swift`) and what follows `test`.
    public var program: String
    public var arguments: [String]

    /// `swift test ...` (or `swift-test ...`), but not `swift test list` or `--help`: `nil` for
    /// any other command.
    public init?(_ command: [String]) {
        guard let first = command.first else { return nil }
        let name = (first as NSString).lastPathComponent
        var rest = Array(command.dropFirst())
        if name == "swift", rest.first == "test" { rest.removeFirst() } else if name != "swift-test" { return nil }
        if let next = rest.first, !next.hasPrefix("-") { return nil }  // `swift test list`, a subcommand
        if rest.contains("--help") || rest.contains("-h") || rest.contains("--version") { return nil }
        program = first
        arguments = rest
        self.isSwiftSubcommand = name == "swift"
    }

    private var isSwiftSubcommand: Bool

    /// Options of `swift test` that take a value (so the value is not read as an option).
    static let valued: Set<String> = [
        "--filter", "--skip", "--num-workers", "--xunit-output", "--package-path", "--scratch-path", "--build-path",
        "-c", "--configuration", "--triple", "--sdk", "--swift-sdk", "--toolchain", "--jobs", "-j",
        "-Xswiftc", "-Xcc", "-Xlinker", "-Xcxx", "--experimental-event-stream-output",
        "--experimental-event-stream-version", "--event-stream-output-path", "--event-stream-version",
        "--attachments-path", "--cache-path", "--config-path", "--security-path",
        "--default-registry-url", "--netrc-file", "--resolver-fingerprint-checking", "--arch",
        "--build-system", "--toolset", "--swift-sdks-path", "--sanitize", "--debug-info-format",
        "-Xbuild-tools-swiftc", "--pkg-config-path",
    ]

    /// Options `swift test list` takes too: where the package is and how it is built.
    static let buildOptions: Set<String> = [
        "--package-path", "--scratch-path", "--build-path", "-c", "--configuration", "--triple", "--sdk",
        "--swift-sdk", "--toolchain", "-Xswiftc", "-Xcc", "-Xlinker", "-Xcxx", "--cache-path", "--config-path",
        "--security-path", "--arch", "--disable-xctest", "--enable-xctest", "--disable-swift-testing",
        "--enable-swift-testing", "--disable-sandbox", "--disable-dependency-cache", "--disable-build-manifest-caching",
        "--build-system", "--toolset", "--swift-sdks-path",
    ]

    /// The options and their values, as `(name, value)`; `name` is nil for a plain word.
    var options: [(name: String?, value: String?, tokens: [String])] {
        var result: [(name: String?, value: String?, tokens: [String])] = []
        var index = 0
        while index < arguments.count {
            let token = arguments[index]
            if token.hasPrefix("-"), let equals = token.firstIndex(of: "="), token.hasPrefix("--") {
                result.append((String(token[..<equals]), String(token[token.index(after: equals)...]), [token]))
            } else if SwiftTestInvocation.valued.contains(token), index + 1 < arguments.count {
                result.append((token, arguments[index + 1], [token, arguments[index + 1]]))
                index += 1
            } else if token.hasPrefix("-") {
                result.append((token, nil, [token]))
            } else {
                result.append((nil, token, [token]))
            }
            index += 1
        }
        return result
    }

    /// Whether the user asked for Swift Testing's event stream themselves (it is then theirs,
    /// and `lab watch` reads the tests' output instead).
    public var givesEventStream: Bool {
        options.contains { $0.name == "--event-stream-output-path" || $0.name == "--experimental-event-stream-output" }
    }

    /// `swift test --help-hidden`, which says whether this SwiftPM takes the event stream's
    /// options (SwiftPM 6.3 shows them there, not in `--help`).
    public var helpCommand: [String] { prefix + ["--help-hidden"] }

    /// The options that make Swift Testing write its event stream (version 0, a JSON object a
    /// line, written as the tests run) to `path`: by their names (SwiftPM 6.3's), then by their
    /// older experimental names.
    public static func eventStreamOptionSets(path: String) -> [[String]] {
        [
            ["--event-stream-output-path", path, "--event-stream-version", "0"],
            ["--experimental-event-stream-output", path, "--experimental-event-stream-version", "0"],
        ]
    }

    /// The first of `eventStreamOptionSets` whose two options `help` (`swift test
    /// --help-hidden`) shows (SwiftPM 6.3 shows `--event-stream-output-path`); `nil` when it
    /// shows neither.
    public static func eventStreamOptions(help: String, path: String) -> [String]? {
        eventStreamOptionSets(path: path).first { help.contains($0[0]) && help.contains($0[2]) }
    }

    /// SwiftPM's hidden option to go on while another SwiftPM holds the scratch path's lock.
    static let ignoreLock = "--ignore-lock"

    /// Whether it runs XCTest's tests each in a process of its own (`--parallel`).
    public var parallel: Bool { arguments.contains("--parallel") }

    /// Whether SwiftPM is asked to be verbose (`-v`, `--verbose`, `--very-verbose`, `--vv`): with
    /// `--parallel` it then prints every test process's output, not only a failed one's
    /// (swift-package-manager `SwiftTestCommand.swift`: `shouldOutputSuccess` is `logLevel <= .info`).
    public var verbose: Bool { options.contains { ["-v", "--verbose", "--very-verbose", "--vv"].contains($0.name) } }

    /// The user's own `--filter` and `--skip` patterns.
    public var filters: [String] { options.filter { $0.name == "--filter" }.compactMap(\.value) }
    public var skips: [String] { options.filter { $0.name == "--skip" }.compactMap(\.value) }

    /// The command that lists the tests this one runs, built already: `swift test list
    /// --skip-build` with the build options.
    public var listCommand: [String] {
        let kept = options.filter { $0.name.map(SwiftTestInvocation.buildOptions.contains) ?? false }.flatMap(\.tokens)
        return prefix + ["list", "--skip-build"] + kept
    }

    /// The same run, of `ids` only, without building again.
    public func rerun(_ ids: [String]) -> [String] {
        let kept = options.filter { $0.name != "--filter" && $0.name != "--skip" }.flatMap(\.tokens)
        let build = kept.contains("--skip-build") ? [] : ["--skip-build"]
        return prefix + kept + build + ids.flatMap { ["--filter", SwiftTestInvocation.exactly($0)] }
    }

    private var prefix: [String] { isSwiftSubcommand ? [program, "test"] : [program] }

    /// The most bytes of `--filter` patterns one rerun is given. SwiftPM runs the XCTest tests
    /// its filters chose by a single argument, their ids joined by commas, whatever the filters
    /// (`TestRunner.xctestArguments(forTestSpecifiers:)`, swift-package-manager's
    /// `SwiftTestCommand.swift`), and Linux takes at most 128 KiB in one argument
    /// (MAX_ARG_STRLEN): a rerun of more than about 2,000 tests could not start, and none of
    /// them ran. Naming a whole class by one pattern would not shorten that argument, since
    /// SwiftPM names each test of it there, so the tests are split into runs instead. A pattern
    /// (`exactly`) is longer than its id, so patterns within this keep that argument within it.
    public static let filterBudget = 100_000

    /// How many of `ids`, from the first, one rerun takes: as many as their patterns fit in
    /// `filterBudget`, and at least one.
    public static func oneRun(of ids: [String]) -> Int {
        var bytes = 0
        for (index, id) in ids.enumerated() {
            bytes += exactly(id).utf8.count + 1
            if bytes > filterBudget { return max(1, index) }
        }
        return ids.count
    }

    /// A pattern that matches test `id` and nothing else: Swift Testing matches against ids
    /// that go on past the name (`Module.Suite/test()/File.swift:7:4`), XCTest's end there.
    public static func exactly(_ id: String) -> String {
        "^" + NSRegularExpression.escapedPattern(for: id) + "(/|$)"
    }

    /// Whether the user's `--filter`s (any) and `--skip`s (none) let `id` run, as SwiftPM
    /// decides it.
    public func selects(_ id: String) -> Bool {
        func matches(_ pattern: String) -> Bool {
            guard let expression = try? NSRegularExpression(pattern: pattern) else { return false }
            return expression.firstMatch(in: id, range: NSRange(id.startIndex..., in: id)) != nil
        }
        if !filters.isEmpty && !filters.contains(where: matches) { return false }
        return !skips.contains(where: matches)
    }
}

/// The tests `swift test list` names, one id a line: `Module.Class/testName` (XCTest) and
/// `Module.Suite/name()` (Swift Testing).
public enum TestList {
    /// The ids of `swift test list`'s output: lines with a `/` and no space, but for spaces
    /// between backticks: a raw identifier (``@Test func `adds two numbers`()``) is listed as
    /// `Module.Suite/`adds two numbers`()`. Dropped, such a test was never run again after a hang,
    /// nor said to be missing. A line of prose (`warning: …/x: …`) has a space outside them.
    ///
    /// A Swift Testing test at a module's top level has no `/`: `Module.check()`. Dropped, it was
    /// never run again after a hang, nor named (measured: SwiftPM 6.3.1 lists
    /// `@Test func topLevel()` of module `TLTests` as `TLTests.topLevel()`).
    public static func parse(_ text: String) -> [String] {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { ($0.contains("/") || isSwiftTesting($0) && $0.contains(".")) && !hasSpaceOutsideBackticks($0) }
    }

    /// Whether `line` has a space that no pair of backticks encloses (an unpaired one leaves the
    /// rest of the line outside).
    static func hasSpaceOutsideBackticks(_ line: String) -> Bool {
        var quoted = false
        var spaceInQuote = false
        for character in line {
            if character == "`" {
                quoted.toggle()
                if !quoted { spaceInQuote = false }
            } else if character == " " {
                if !quoted { return true }
                spaceInQuote = true
            }
        }
        return quoted && spaceInQuote
    }

    /// What `swift test list` said: the ids, and the name Swift Testing prints for each test
    /// with a display name (`"Adds two numbers"`, quoted), which its id does not show.
    public struct Listing: Sendable {
        public var ids: [String]
        public var displayNames: [String: String] = [:]

        public init(ids: [String], displayNames: [String: String] = [:]) {
            (self.ids, self.displayNames) = (ids, displayNames)
            var seen: [String: Int] = [:]
            for id in ids where !TestList.isSwiftTesting(id) {
                let key = TestList.key(of: id)
                let n = seen[key, default: 0] + 1
                seen[key] = n
                if n > 1 { namesakeNumber[id] = n }
            }
        }

        /// XCTest tests listed after another of the key their output gives (`ModA.FooTests/testX`,
        /// then `ModB.FooTests/testX`), with their number in turn: `TestProgress.instance(_:_:)`.
        private var namesakeNumber: [String: Int] = [:]
        /// Whether the run's progress numbers namesakes in turn (`TestProgress.namesakesInTurn`).
        public var namesakesInTurn = true

        /// Whether Swift Testing's tests are followed through its event stream, which names
        /// them by id: their key is then the id itself.
        public var swiftTestingByID = false

        /// The key the run's progress gives test `id`: the name its own output gives it, or
        /// for Swift Testing followed by its event stream, the id.
        public func key(of id: String) -> String {
            if swiftTestingByID && TestList.isSwiftTesting(id) { return id }
            if namesakesInTurn, let n = namesakeNumber[id] { return TestProgress.instance(TestList.key(of: id), n) }
            return displayNames[id] ?? TestList.key(of: id)
        }

        /// The id of the listed test its output names `key`.
        public func id(of key: String) -> String? { ids.first { self.key(of: $0) == key } }
    }

    /// The names Swift Testing prints for the tests with a display name, by id, from an event
    /// stream (version 0: a JSON object a line; a `test` record per test). The stream's ids go
    /// on with the source location (`Module.Suite/f()/File.swift:6:6`), cut here to the list's.
    public static func displayNames(eventStream: String) -> [String: String] {
        var names: [String: String] = [:]
        for line in eventStream.split(separator: "\n") {
            guard let record = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let named = displayName(in: record)
            else { continue }
            names[named.id] = named.name
        }
        return names
    }

    /// The id (without its source location) and the display name, quoted as Swift Testing
    /// prints it, of a `test` record of a test function that has one; `nil` for any other record.
    public static func displayName(in record: [String: Any]) -> (id: String, name: String)? {
        guard record["kind"] as? String == "test", let test = record["payload"] as? [String: Any],
            test["kind"] as? String == "function", let name = test["displayName"] as? String,
            let id = test["id"] as? String
        else { return nil }
        return (withoutSourceLocation(id), "\"\(name)\"")
    }

    /// An id of Swift Testing's event stream cut to the list's: `Module.Suite/f()/File.swift:6:6`
    /// is `Module.Suite/f()`, and a top-level test's `Module.f()/File.swift:2:2` is `Module.f()`
    /// (kept whole, it read as no test's: a top-level test was never timed, and its hang, if it
    /// used a CPU, never ended).
    public static func withoutSourceLocation(_ id: String) -> String {
        var parts = id.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count >= 2, parts.last?.contains(".swift:") == true, parts[parts.count - 2].hasSuffix(")") {
            parts.removeLast()
        }
        return parts.joined(separator: "/")
    }

    /// Whether `id` is a Swift Testing test function's (`Module.Suite/f(x:)`, or `Module.f()` at
    /// a module's top level), not an XCTest test's (`Module.Class/test`) or a suite's
    /// (`Module.Suite`).
    public static func isSwiftTesting(_ id: String) -> Bool {
        id.split(separator: "/").last.map { $0.contains("(") && $0.hasSuffix(")") } == true
    }

    /// The name the test's own output gives it: `OrderTests.test1` for XCTest's
    /// `Module.OrderTests/test1`, `firstPasses()` for Swift Testing's `Module.Suite/firstPasses()`.
    public static func key(of id: String) -> String {
        let parts = id.split(separator: "/")
        guard let last = parts.last else { return id }
        if let topLevel = topLevel(id) { return String(topLevel.function) }
        if last.contains("(") { return String(last) }
        guard parts.count >= 2 else { return id }
        let owner = parts[parts.count - 2].split(separator: ".").last.map(String.init) ?? String(parts[parts.count - 2])
        return owner + "." + swiftName(of: last)
    }

    /// A Swift Testing test at a module's top level (`Module.f()`, no `/`) cut in two: its
    /// module's name (which has no dot) and its function's (`f()`); `nil` for any other id.
    static func topLevel(_ id: String) -> (module: Substring, function: Substring)? {
        guard !id.contains("/"), let paren = id.firstIndex(of: "("), let dot = id[..<paren].firstIndex(of: ".")
        else { return nil }
        return (id[..<dot], id[id.index(after: dot)...])
    }

    /// An XCTest method as Swift names it, from the name Objective-C may give it on Apple's
    /// platforms: a `throws` test's selector ends `AndReturnError:`, an `async` one's
    /// `WithCompletionHandler:`. SwiftPM's XCTest helper cut the first from the names it listed
    /// (swift-package-manager `Sources/swiftpm-xctest-helper/main.swift`, removed in 2023 for the
    /// copy inside Xcode); whether a Mac's list or its `Test Case` lines carry either today is
    /// not known here, so both are read without them, and a Linux name, which has no `:`, is
    /// left as it is.
    static func swiftName(of method: Substring) -> Substring {
        guard method.hasSuffix(":") else { return method }
        for bridged in ["AndReturnError:", "WithCompletionHandler:"] where method.hasSuffix(bridged) {
            let name = method.dropLast(bridged.count)
            if !name.isEmpty { return name }
        }
        return method
    }
}
