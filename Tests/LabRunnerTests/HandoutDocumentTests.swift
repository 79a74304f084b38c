import Foundation
import LabRunner
import XCTest

/// Keeps the handouts (`notes/*.md`) and `README.md` true to the committed run in
/// `notes/results/` and to the code, so that a student can trust a figure and an instructor can
/// point at a row that exists.
///
/// The conventions a writer follows (described in `notes/README.md`, "How the figures are kept
/// honest"):
///
/// - **A quoted block**: the line `<!-- from: results.md -->` right before a table, a list or a
///   fenced block. Every line of that block must be a line of
///   `notes/results/linux-2cores/results.md` (the committed run's report page), in the page's
///   order. After regenerating the results, paste the new rows.
/// - **A figure**: the number followed by `<!--r EXPERIMENT/VARIANT METRIC-->` (or
///   `<!--r lab KEY-->` for the whole run: `elapsed_s`, `findings.reproduced`,
///   `findings.applicable`). The number is compared with the metric of
///   `notes/results/linux-2cores.json`, rounded to the decimals the text shows, in the metric's
///   own unit, or in the unit named after the metric (`s`, `ms`, `µs`, `%`, `k`).
/// - **Names**: every finding id (`runloop.…`, `pool.…`, `dance.…`, `callback.…`), every name
///   after `--variant`, and every `File.swift:LINE` must still exist in the code; a
///   `Type.method (File.swift:LINE)` frame must name a line inside that function's body: the
///   nearest `func` at or above the line is `method`, and the line comes before its closing brace.
/// - **Programs**: every `notes/programs/*.swift` that the answers build must typecheck with
///   `swiftc -typecheck -swift-version 6`, and `notes/answers.md` must give its build command.
///
/// - **Every other figure** in prose (a number before ms, µs, s, MB, threads or %) names the
///   command that printed it: a code span with the command (`swift run …`, `time …`) in the same
///   sentence (in a table, the same row or the sentence that introduces the table), or a fenced
///   block with the command right before or after its paragraph; in the answers and the
///   appendices, whose sections each report one command's runs, anywhere in its section.
///   Parameters, thresholds and a short list of exceptions (`unmarkedFigureRules`,
///   `unmarkedFigureExceptions`, each with its reason) need neither.
///   `testEveryFigureInProseIsMarkedOrNamesItsCommand` lists every figure that does neither.
/// - **The README's JSON excerpt** (its `## JSON` section) is checked key by key against the
///   committed run.
final class HandoutDocumentTests: XCTestCase {
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    private static let resultsPage = "notes/results/linux-2cores/results.md"
    private static let resultsJSON = "notes/results/linux-2cores.json"

    private struct Document {
        let path: String
        let lines: [String]
    }

    private func documents() throws -> [Document] {
        let notes = Self.root.appendingPathComponent("notes")
        let names = try FileManager.default.contentsOfDirectory(atPath: notes.path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "notes/" + $0 }
        return try (["README.md"] + names).map { path in
            let text = try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
            return Document(path: path, lines: text.components(separatedBy: "\n"))
        }
    }

    private func text(_ path: String) throws -> String {
        try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
    }

    // MARK: quoted blocks

    func testQuotedBlocksAreLinesOfTheCommittedReport() throws {
        let pageLines = try text(Self.resultsPage).components(separatedBy: "\n").map(trimmed)
        let page = Set(pageLines)
        // The committed report's row for the same first cell (a variant, a finding), to show
        // what to paste instead.
        func counterpart(of line: String) -> String {
            let cells = trimmed(line).split(separator: "|", omittingEmptySubsequences: true)
            guard trimmed(line).hasPrefix("|"), let first = cells.first else { return "" }
            let key = "|" + first + "|"
            return pageLines.first { $0.hasPrefix(key) }.map { "; the committed report's row is: \($0)" }
                ?? "; the committed report has no row for \(trimmed(String(first)))"
        }
        var checked = 0
        for document in try documents() {
            // A marker is a line of its own; one inside a sentence (this convention described) is not.
            for (index, line) in document.lines.enumerated() where trimmed(line).hasPrefix("<!-- from:") {
                XCTAssertEqual(
                    trimmed(line), "<!-- from: results.md -->",
                    "\(document.path):\(index + 1): the only source a block may quote is results.md (\(Self.resultsPage))"
                )
                let block = quotedBlock(after: index, in: document.lines)
                XCTAssertFalse(block.isEmpty, "\(document.path):\(index + 1): no block follows the marker")
                for (lineIndex, quoted) in block where !page.contains(trimmed(quoted)) {
                    XCTFail(
                        "\(document.path):\(lineIndex + 1): this quoted line is not a line of \(Self.resultsPage) (regenerated? paste the new one): \(quoted)\(counterpart(of: quoted))"
                    )
                }
                if let misplaced = outOfOrderLine(in: block, page: pageLines) {
                    XCTFail(
                        "\(document.path):\(misplaced.line + 1): \(Self.resultsPage) prints \(misplaced.text) before \(misplaced.after), which the block quotes above it; keep the report's order"
                    )
                }
                checked += block.count
            }
        }
        XCTAssertGreaterThan(checked, 80, "the handouts quote the committed run's tables; did the marker change?")
    }

    /// The first line of a quoted block that the committed report prints before an earlier
    /// line of the same block, so that a table keeps the rows in the order the report (and the
    /// terminal) shows them. Only lines the report holds once are placed (a table's header and
    /// rule repeat from table to table).
    private func outOfOrderLine(in block: [(Int, String)], page: [String]) -> (line: Int, after: String, text: String)?
    {
        // A table row by its first cell; any other line whole.
        func name(_ line: String) -> String {
            guard line.hasPrefix("|"), let first = line.split(separator: "|", omittingEmptySubsequences: true).first
            else { return "the line \"\(line)\"" }
            return "the row " + trimmed(String(first))
        }
        var counts: [String: Int] = [:]
        for line in page { counts[line, default: 0] += 1 }
        var last: (position: Int, text: String)?
        for (lineIndex, quoted) in block {
            let line = trimmed(quoted)
            guard counts[line] == 1, let position = page.firstIndex(of: line) else { continue }
            if let previous = last, position < previous.position {
                return (lineIndex, name(previous.text), name(line))
            }
            last = (position, line)
        }
        return nil
    }

    /// The lines of the block after a marker: a fenced block's contents, or the next lines up
    /// to the first blank one.
    private func quotedBlock(after marker: Int, in lines: [String]) -> [(Int, String)] {
        var index = marker + 1
        guard index < lines.count else { return [] }
        if lines[index].hasPrefix("```") {
            index += 1
            var block: [(Int, String)] = []
            while index < lines.count, !lines[index].hasPrefix("```") {
                if !trimmed(lines[index]).isEmpty { block.append((index, lines[index])) }
                index += 1
            }
            return block
        }
        var block: [(Int, String)] = []
        while index < lines.count, !trimmed(lines[index]).isEmpty {
            block.append((index, lines[index]))
            index += 1
        }
        return block
    }

    // MARK: figures

    func testMarkedFiguresMatchTheCommittedResults() throws {
        let results = try XCTUnwrap(
            JSONSerialization.jsonObject(
                with: Data(contentsOf: Self.root.appendingPathComponent(Self.resultsJSON))) as? [String: Any])
        let marker = try Regex(#"<!--r ([^ >]+) ([A-Za-z0-9_.@-]+)(?: ([a-zµ%]+))?-->"#)
        let number = try Regex(#"-?[0-9][0-9,]*(?:\.[0-9]+)?"#)
        var checked = 0
        for document in try documents() {
            for (index, line) in document.lines.enumerated() {
                for match in line.matches(of: marker) {
                    // A marker in a code span (`<!--r ...-->`) shows the convention; it marks nothing.
                    if match.range.lowerBound > line.startIndex, line[line.index(before: match.range.lowerBound)] == "`"
                    {
                        continue
                    }
                    let place = "\(document.path):\(index + 1)"
                    let subject = String(match.output[1].substring ?? "")
                    let key = String(match.output[2].substring ?? "")
                    let unit = match.output[3].substring.map(String.init)
                    let before = String(line[..<match.range.lowerBound])
                        .replacingOccurrences(of: #"<!--r [^>]*-->"#, with: "", options: .regularExpression)
                    guard let written = before.matches(of: number).last.map({ String(before[$0.range]) }) else {
                        XCTFail("\(place): no number right before the figure marker for \(subject) \(key)")
                        continue
                    }
                    guard let value = metric(subject, key, in: results) else {
                        XCTFail("\(place): \(subject) has no \(key) in \(Self.resultsJSON) (renamed or gone?)")
                        continue
                    }
                    guard let shown = convert(value, from: key, to: unit) else {
                        XCTFail("\(place): cannot show \(key) in \(unit ?? "its own unit")")
                        continue
                    }
                    let plain = written.replacingOccurrences(of: ",", with: "")
                    let decimals = plain.split(separator: ".").dropFirst().first?.count ?? 0
                    let quantum = pow(10, -Double(decimals))
                    if abs(shown - (Double(plain) ?? .nan)) > quantum / 2 + 1e-9 || Double(plain) == nil {
                        let rounded = String(format: "%.\(decimals)f", shown)
                        let shownAs = rounded + (unit.map { " " + $0 } ?? "")
                        XCTFail(
                            "\(place): \(written) is not \(subject) \(key) of \(Self.resultsJSON), which shows as \(shownAs)"
                        )
                    }
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(checked, 50, "the handouts mark their figures; did the marker change?")
    }

    private func metric(_ subject: String, _ key: String, in results: [String: Any]) -> Double? {
        let experiments = results["experiments"] as? [[String: Any]] ?? []
        func findings(_ list: [[String: Any]]) -> [[String: Any]] {
            list.flatMap { $0["findings"] as? [[String: Any]] ?? [] }.filter { $0["applicable"] as? Bool == true }
        }
        func count(_ list: [[String: Any]], _ key: String) -> Double? {
            switch key {
            case "findings.applicable": return Double(findings(list).count)
            case "findings.reproduced": return Double(findings(list).filter { $0["reproduced"] as? Bool == true }.count)
            default: return nil
            }
        }
        if subject == "lab" {
            return count(experiments, key) ?? (results[key] as? NSNumber)?.doubleValue
        }
        let parts = subject.split(separator: "/", maxSplits: 1).map(String.init)
        guard let experiment = experiments.first(where: { $0["experiment"] as? String == parts.first }) else {
            return nil
        }
        guard parts.count == 2 else { return count([experiment], key) }
        let variants = experiment["variants"] as? [[String: Any]] ?? []
        let metrics = variants.first { $0["name"] as? String == parts[1] }?["metrics"] as? [String: Any]
        return (metrics?[key] as? NSNumber)?.doubleValue
    }

    private func convert(_ value: Double, from key: String, to unit: String?) -> Double? {
        let own = key.hasSuffix("_ms") ? "ms" : key.hasSuffix("_s") ? "s" : ""
        guard let unit, unit != own else { return value }
        let seconds: [String: Double] = ["s": 1, "ms": 1e-3, "µs": 1e-6]
        if let from = seconds[own], let to = seconds[unit] { return value * from / to }
        switch (own, unit) {
        case ("", "%"): return value * 100
        case ("", "k"): return value / 1000
        default: return nil
        }
    }

    // MARK: unmarked figures

    /// A figure in prose: a number (or a range or list of numbers) right before a unit.
    private static let figurePattern =
        #"\b\d[\d,]*(?:\.\d+)?(?:(?:-|–| to | and |, )\d[\d,]*(?:\.\d+)?)*\s?(?:ms|µs|s|MB|threads?|%)(?![\w])"#

    /// A paragraph that names one of these commands in a code span says where its figures come from.
    private static let commandPattern = #"`(?:time |swift (?:run|test|build)|swiftc |COLUMNS=|gdb )[^`]*`"#

    /// The short list of figures in prose that need no marker: the words right before the figure
    /// (`before`, matched at the end of the text before it) or right after it (`after`, matched at
    /// the start of the text after it), and why such a figure is not a measured result.
    static let unmarkedFigureRules: [(before: String?, after: String?, reason: String)] = [
        (
            nil,
            #"^\s*(?:timeout|timer|lookup|window|interval|delay|grace|slices?|apart|blocks?|latency|budget|watch|into|after its)\b"#,
            "a parameter the run is given (a 1 s timeout, a 500 ms window, 20 blocks of 1 s, a message 0.25 s into the lookup), not a result"
        ),
        (
            #"(?:every|default|each|for|at a|≤|<|under|limit|patience|within|after a|of a|blocks of|over|between|interval \(|\+)\s*$"#,
            nil,
            "a parameter, a threshold or a question put to the room (every 10 ms, default 2 s, within 2 s, ≤ 5 ms, latency + 0.25 s), not a result"
        ),
    ]

    /// Documents whose sections each report one command's runs (the exercises' key, the
    /// appendices' measurement notes): there a command named anywhere in the figure's section
    /// (under its nearest heading, in a code span or a fenced block) says where its figures
    /// come from, as the documents' opening lines state.
    static let sectionCommandDocuments: Set<String> = [
        "notes/answers.md", "notes/callback-appendix.md", "notes/dance-appendix.md",
        "notes/pool-appendix.md", "notes/runloop-appendix.md",
    ]

    /// Figures no rule excuses that still are not the committed run's: (file, words that contain
    /// the figure, why). Keep it short; a result belongs in a marker or beside its command.
    static let unmarkedFigureExceptions: [(path: String, text: String, reason: String)] = [
        (
            "notes/runloop.md", #""Late p99 4 ms" means 99 % of the timers fired within 4 ms"#,
            "an example in the definition of p99, not a measurement"
        ),
        (
            "notes/runloop.md", "a fixed 25 at once would take 12 s",
            "arithmetic on a model the handout rules out (300 requests / 25 at once × 1 s), not a measurement"
        ),
        (
            "README.md", "so a 6 µs release never looks like a 2 s one",
            "an illustration of the report's scale labels, not a measurement"
        ),
        (
            "notes/callback.md", "the lookup takes 1 s",
            "a parameter of the question put to the room before the run"
        ),
        (
            "notes/pool-appendix.md", "2 × idle p99 or **100 ms**",
            "the verdict's threshold (the instant-response limit), which the experiment declares"
        ),
        (
            "notes/workshop.md", "(40 requests, 250 ms)",
            "the sizes `--quick` sets, not a result"
        ),
    ]

    /// Each unmarked figure of the handouts that no rule or exception excuses, as `path:line: figure`.
    private func unmarkedFigures() throws -> [String] {
        let figure = try Regex(Self.figurePattern)
        let command = try Regex(Self.commandPattern)
        let codeSpan = try Regex(#"`[^`]*`"#)
        let figureMarker = try Regex(#"<!--r [^>]*-->"#)
        let rules = try Self.unmarkedFigureRules.map { rule in
            (before: try rule.before.map { try Regex($0) }, after: try rule.after.map { try Regex($0) })
        }
        var found: [String] = []
        for document in try documents() {
            // Paragraphs: runs of non-blank lines outside fenced and quoted blocks.
            var paragraphs: [[(number: Int, line: String)]] = []
            var current: [(number: Int, line: String)] = []
            var fenced = false
            var quoted = false
            // Whether the section each line is in names a command (see sectionCommandDocuments).
            var sectionNamesCommand: [Int: Bool] = [:]
            var sectionStart = 0
            func closeSection(at end: Int) {
                let section = document.lines[sectionStart..<end]
                let named = section.contains { $0.contains(command) || $0.hasPrefix("swift ") }
                for number in sectionStart..<end { sectionNamesCommand[number + 1] = named }
                sectionStart = end
            }
            for (index, line) in document.lines.enumerated() where line.hasPrefix("#") { closeSection(at: index) }
            closeSection(at: document.lines.count)
            for (index, line) in document.lines.enumerated() {
                if line.hasPrefix("```") { fenced.toggle(); continue }
                if fenced { continue }
                if trimmed(line).isEmpty {
                    quoted = false
                    if !current.isEmpty { paragraphs.append(current); current = [] }
                    continue
                }
                if trimmed(line).hasPrefix("<!-- from:") { quoted = true; continue }
                if quoted { continue }
                current.append((index + 1, line))
            }
            if !current.isEmpty { paragraphs.append(current) }
            // The paragraphs right before and right after a fenced block whose lines include a
            // command speak of that command ("**Project (the run takes 11.2 s):**", "(8.4 s.)").
            var afterCommandBlock: Set<Int> = [], beforeCommandBlock: Set<Int> = []
            var inFence = false, fenceHasCommand = false, fenceStart = 0
            for (index, line) in document.lines.enumerated() {
                if line.hasPrefix("```") {
                    if inFence, fenceHasCommand {
                        var next = index + 1
                        while next < document.lines.count, trimmed(document.lines[next]).isEmpty { next += 1 }
                        afterCommandBlock.insert(next + 1)
                        var before = fenceStart - 1
                        while before > 0, trimmed(document.lines[before]).isEmpty { before -= 1 }
                        beforeCommandBlock.insert(before + 1)
                    }
                    if !inFence { fenceStart = index }
                    inFence.toggle(); fenceHasCommand = false
                    continue
                }
                if inFence, line.hasPrefix("swift ") || line.hasPrefix("COLUMNS=") || line.hasPrefix("time ") {
                    fenceHasCommand = true
                }
            }
            var previous = ""
            for paragraph in paragraphs {
                let text = paragraph.map(\.line).joined(separator: "\n")
                defer { previous = text }
                // A table shares the command of the sentence that introduces it.
                let isTable = paragraph.first?.line.hasPrefix("|") == true
                if isTable && previous.contains(command) { continue }
                if afterCommandBlock.contains(paragraph[0].number)
                    || beforeCommandBlock.contains(paragraph[paragraph.count - 1].number)
                {
                    continue
                }
                if Self.sectionCommandDocuments.contains(document.path),
                    sectionNamesCommand[paragraph[0].number] == true
                {
                    continue
                }
                // Code spans (which may run over a line end) and markers blanked, offsets kept.
                let spansOut = text.replacing(codeSpan) { String(repeating: "_", count: text[$0.range].count) }
                let plain = spansOut.replacing(figureMarker) {
                    String(repeating: "\u{1}", count: spansOut[$0.range].count)
                }
                let flat = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
                for match in plain.matches(of: figure) {
                    // Only a whole number: not the tail of a name, a version or a longer number.
                    if match.range.lowerBound > plain.startIndex {
                        let previous = plain[plain.index(before: match.range.lowerBound)]
                        if previous.isLetter || previous.isNumber || previous == "_" || previous == "."
                            || previous == ","
                        {
                            continue
                        }
                    }
                    // A marker right after the number or after its unit marks the figure.
                    if plain[match.range].contains("\u{1}")
                        || plain[match.range.upperBound...].prefix(2).contains("\u{1}")
                    {
                        continue
                    }
                    // A command in the figure's own sentence (in a table, its own row) names
                    // where it comes from. Code spans are blanked in `plain`, so their dots end
                    // no sentence; offsets are the same in `text` and `plain`.
                    let start = plain.distance(from: plain.startIndex, to: match.range.lowerBound)
                    let unit = Array(plain)
                    var first = start, last = start
                    let ends: (Int) -> Bool = { i in
                        isTable
                            ? unit[i] == "\n"
                            : (unit[i] == "." || unit[i] == "?" || unit[i] == "!")
                                && (i + 1 == unit.count || unit[i + 1] == " " || unit[i + 1] == "\n")
                    }
                    while first > 0, !ends(first - 1) { first -= 1 }
                    while last < unit.count, !ends(last) { last += 1 }
                    let characters = Array(text)
                    let sentence = String(characters[first..<min(last + 1, characters.count)])
                    if sentence.contains(command) { continue }
                    let before = String(plain[..<match.range.lowerBound].suffix(40))
                    let after = String(plain[match.range.upperBound...].prefix(40))
                    if rules.contains(where: { rule in
                        (rule.before.map { r in
                            before.matches(of: r).contains { $0.range.upperBound == before.endIndex }
                        } ?? false)
                            || (rule.after.map { after.prefixMatch(of: $0) != nil } ?? false)
                    }) {
                        continue
                    }
                    let written = String(plain[match.range]).replacingOccurrences(of: "\n", with: " ")
                    let lead = min(30, plain.distance(from: plain.startIndex, to: match.range.lowerBound))
                    let contextStart = plain.index(match.range.lowerBound, offsetBy: -lead)
                    let context = String(plain[contextStart..<match.range.upperBound])
                        .replacingOccurrences(of: "\n", with: " ")
                    if Self.unmarkedFigureExceptions.contains(where: {
                        $0.path == document.path && flat.contains($0.text) && $0.text.contains(written)
                    }) {
                        continue
                    }
                    let line = paragraph[plain[..<match.range.lowerBound].filter { $0 == "\n" }.count].number
                    found.append("\(document.path):\(line): \(written) (\"…\(context)\")")
                }
            }
        }
        return found
    }

    func testEveryFigureInProseIsMarkedOrNamesItsCommand() throws {
        for place in try unmarkedFigures() {
            XCTFail(
                "\(place): a figure with no marker, outside a quoted block, with no command in its sentence: mark it (<!--r EXPERIMENT/VARIANT METRIC-->) if it is the committed run's, name the command that prints it, or add it to unmarkedFigureExceptions with a reason"
            )
        }
    }

    // MARK: the test counts

    /// The folders of the main package's test targets, as `Package.swift` declares them: the
    /// `path:` of each `.testTarget`, with a path built from the `experiments` list
    /// (`"Tests/\(tests)"`) expanded to each of its findings-test targets. The packages nested
    /// under `Tests/` (HarnessUser, WatchFixture) and the folders no test target names
    /// (DarwinStrictness, the fixture's sources) are not among them: `swift test` runs none of theirs.
    private func testTargetFolders() throws -> [String] {
        let manifest = try text("Package.swift")
        let target = try Regex(#"\.testTarget\((?:.|\n)*?path:\s*"([^"]+)""#)
        let experiment = try Regex(#"\("exp-[A-Za-z0-9-]+",\s*"[A-Za-z0-9]+",\s*"([A-Za-z0-9]+)"\)"#)
        let findingsTargets = manifest.matches(of: experiment).map { String($0.output[1].substring ?? "") }
        return manifest.matches(of: target).flatMap { match -> [String] in
            let path = String(match.output[1].substring ?? "")
            return path.hasSuffix("\\(tests)")
                ? findingsTargets.map { path.replacingOccurrences(of: "\\(tests)", with: $0) } : [path]
        }
    }

    /// What `swift test` runs in the main package, counted from the sources the way each runner
    /// counts: XCTest runs every `func test…()` (no parameters, not static) of an `XCTestCase`
    /// subclass, its extensions and the classes that inherit it (`swift test list` lists those
    /// alone, one line each); Swift Testing's "Test run with N tests" counts each `@Test` function
    /// once, a parameterized one too (its arguments are cases of one test, not tests).
    private func testCounts() throws -> (xctest: Int, swiftTesting: Int) {
        let classDeclaration = try Regex(
            #"^\s*(?:(?:final|open|public|internal|private|fileprivate|@MainActor)\s+)*class\s+([A-Za-z_][A-Za-z0-9_]*)\s*:\s*([A-Za-z_][A-Za-z0-9_.]*)"#
        )
        let testMethod = try Regex(
            #"^\s*(?:(?:override|public|internal|open|final|nonisolated|@MainActor)\s+)*func\s+(test[A-Za-z0-9_]*)\s*\(\s*\)"#
        )
        let testAttribute = try Regex(#"^\s*@Test(?:\(|\s|$)"#)
        var files: [[String]] = []
        for folder in try testTargetFolders() {
            let urls = try sources(under: folder).filter { $0.pathExtension == "swift" }
            XCTAssertFalse(
                urls.isEmpty, "Package.swift names the test target folder \(folder), which holds no Swift file")
            files += try urls.map { try String(contentsOf: $0, encoding: .utf8).components(separatedBy: "\n") }
        }
        var superclass: [String: String] = [:]
        var own: [String: Int] = [:]
        var swiftTesting = 0
        // Each regex runs only on lines holding its keyword (a match holds it): the same counts,
        // without running Swift's Regex over every line of every test file (seconds in a debug build).
        for lines in files {
            for line in lines {
                if line.contains("class"), let match = line.firstMatch(of: classDeclaration) {
                    superclass[String(match.output[1].substring ?? "")] = String(match.output[2].substring ?? "").split(
                        separator: "."
                    ).last.map(String.init)
                }
                if line.contains("@Test"), line.firstMatch(of: testAttribute) != nil { swiftTesting += 1 }
            }
        }
        for lines in files {
            let types = Self.enclosingTypes(in: lines)
            for (index, line) in lines.enumerated()
            where line.contains("func") && line.firstMatch(of: testMethod) != nil {
                // `@Test func testSomething()` is Swift Testing's, whatever its name.
                if line.contains("@Test")
                    || (index > 0 && lines[index - 1].contains("@Test")
                        && lines[index - 1].firstMatch(of: testAttribute) != nil)
                {
                    continue
                }
                if let type = types[index] { own[type, default: 0] += 1 }
            }
        }
        // A class's tests: its own and those it inherits; only XCTestCase's descendants count.
        func isTestCase(_ name: String, _ depth: Int = 0) -> Bool {
            guard depth < 20, let parent = superclass[name] else { return false }
            return parent == "XCTestCase" || isTestCase(parent, depth + 1)
        }
        func tests(of name: String, _ depth: Int = 0) -> Int {
            guard depth < 20, isTestCase(name) else { return 0 }
            return (own[name] ?? 0) + (superclass[name].map { tests(of: $0, depth + 1) } ?? 0)
        }
        let xctest = superclass.keys.map { tests(of: $0) }.reduce(0, +)
        return (xctest, swiftTesting)
    }

    /// The README (and the run sheet, where it quotes one) says how many tests `swift test`
    /// runs; the count must be the package's, so that a new test cannot leave an old count
    /// (and the timings beside it) standing unnoticed.
    func testTheTestCountsTheHandoutsQuoteAreThePackages() throws {
        let counts = try testCounts()
        XCTAssertGreaterThan(counts.xctest, 100, "no XCTest methods found: did the test targets' folders move?")
        XCTAssertGreaterThan(counts.swiftTesting, 5, "no @Test functions found: did the test targets' folders move?")
        let quoted = [
            (
                framework: "XCTest", actual: counts.xctest,
                pattern: try Regex(#"XCTest\s+(?:ran\s+)?(\d[\d,]*)\s+tests?\b"#),
                rule: "func test…() methods of XCTestCase subclasses in the test targets of Package.swift"
            ),
            (
                framework: "Swift Testing", actual: counts.swiftTesting,
                pattern: try Regex(#"Swift\s+Testing\s+(?:ran\s+)?(\d[\d,]*)\s+tests?\b"#),
                rule: "@Test functions in the test targets of Package.swift, a parameterized one counted once"
            ),
        ]
        var inReadme: Set<String> = []
        for path in ["README.md", "notes/workshop.md"] {
            let document = try text(path)
            for count in quoted {
                for match in document.matches(of: count.pattern) {
                    let line = document[..<match.range.lowerBound].filter { $0 == "\n" }.count + 1
                    let written = Int((match.output[1].substring ?? "").replacingOccurrences(of: ",", with: ""))
                    let words = document[match.range].split(whereSeparator: \.isWhitespace).joined(separator: " ")
                    if path == "README.md" { inReadme.insert(count.framework) }
                    XCTAssertEqual(
                        written, count.actual,
                        "\(path):\(line): \"\(words)\", but the package has \(count.actual) (\(count.rule)); write \(count.actual), and take the timings beside it from a new run"
                    )
                }
            }
        }
        XCTAssertEqual(
            inReadme, ["XCTest", "Swift Testing"],
            "README.md quotes how many tests each framework runs (\"XCTest ran N tests\", \"Swift Testing N tests\")")
        // The run sheet quotes the README's times: "XCTest 115 to 125 s, Swift Testing 4.5 s".
        let times = try Regex(
            #"XCTest\s+ran\s+\d+\s+tests\s+in\s+([\d.]+(?:\s+to\s+[\d.]+)?)\s+s\s+and\s+Swift\s+Testing\s+\d+\s+tests\s+in\s+([\d.]+(?:\s+to\s+[\d.]+)?)\s+s"#
        )
        let readme = try XCTUnwrap(
            try text("README.md").firstMatch(of: times),
            "README.md: \"XCTest ran N tests in T s and Swift Testing N tests in T s\"")
        func words(_ text: Substring?) -> String {
            (text ?? "").split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }
        let quote =
            "XCTest \(words(readme.output[1].substring)) s, Swift Testing \(words(readme.output[2].substring)) s"
        let sheet = try text("notes/workshop.md").split(whereSeparator: \.isWhitespace).joined(separator: " ")
        XCTAssertTrue(sheet.contains(quote), "notes/workshop.md's full-tests row quotes the README's times: \(quote)")
    }

    // MARK: the README's JSON excerpt

    /// The README's `## JSON (schema 1)` section shows an excerpt of the committed run's report
    /// of one experiment: every key it shows must be in the committed run with the same value
    /// (numbers to six significant digits, as the report writes them); lists of findings and
    /// variants are matched by `id` and `name`, other lists (a series) must be a prefix.
    func testTheReadmeJSONExcerptIsTheCommittedRun() throws {
        let results = try XCTUnwrap(
            JSONSerialization.jsonObject(
                with: Data(contentsOf: Self.root.appendingPathComponent(Self.resultsJSON))) as? [String: Any])
        let lines = try text("README.md").components(separatedBy: "\n")
        let heading = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("## JSON") }, "README.md has no JSON section")
        let open = try XCTUnwrap(
            lines[heading...].firstIndex { $0.hasPrefix("```json") }, "README.md's JSON section has no ```json block")
        let close = try XCTUnwrap(lines[(open + 1)...].firstIndex { $0.hasPrefix("```") })
        let excerpt = try XCTUnwrap(
            JSONSerialization.jsonObject(
                with: Data(lines[(open + 1)..<close].joined(separator: "\n").utf8)) as? [String: Any],
            "README.md:\(open + 1): the excerpt is not a JSON object")
        let name = try XCTUnwrap(excerpt["experiment"] as? String)
        let committed = try XCTUnwrap(
            (results["experiments"] as? [[String: Any]])?.first { $0["experiment"] as? String == name },
            "\(Self.resultsJSON) has no experiment \(name)")
        let differences = jsonDifferences(excerpt, committed, path: name)
        for difference in differences {
            XCTFail(
                "README.md:\(open + 1) (the JSON excerpt): \(difference); paste the committed run's value from \(Self.resultsJSON)"
            )
        }
        XCTAssertGreaterThan(jsonLeaves(excerpt), 20, "the excerpt shows the committed run's keys")
    }

    /// How `shown` differs from `actual`, one line per key.
    private func jsonDifferences(_ shown: Any, _ actual: Any?, path: String) -> [String] {
        switch shown {
        case let object as [String: Any]:
            guard let other = actual as? [String: Any] else {
                return ["\(path) is an object in the excerpt, not in the committed run"]
            }
            return object.keys.sorted().flatMap { key -> [String] in
                guard let value = other[key] else { return ["\(path).\(key) is not in the committed run"] }
                return jsonDifferences(object[key]!, value, path: "\(path).\(key)")
            }
        case let list as [Any]:
            guard let other = actual as? [Any] else {
                return ["\(path) is a list in the excerpt, not in the committed run"]
            }
            var lines: [String] = []
            for (index, item) in list.enumerated() {
                if let object = item as? [String: Any], let key = ["id", "name"].first(where: { object[$0] is String })
                {
                    let wanted = object[key] as! String
                    let match = other.first { ($0 as? [String: Any])?[key] as? String == wanted }
                    lines +=
                        match.map { jsonDifferences(item, $0, path: "\(path)[\(wanted)]") }
                        ?? ["\(path) has no \(key) \(wanted) in the committed run"]
                } else if index < other.count {
                    lines += jsonDifferences(item, other[index], path: "\(path)[\(index)]")
                } else {
                    lines.append("\(path)[\(index)] is beyond the committed run's \(other.count) items")
                }
            }
            return lines
        case let number as NSNumber where "\(shown)" != "\(actual ?? "nil")":
            guard let other = (actual as? NSNumber)?.doubleValue else {
                return [
                    "\(path) is \(number) in the excerpt, \(actual.map { "\($0)" } ?? "nothing") in the committed run"
                ]
            }
            let value = number.doubleValue
            let tolerance = max(abs(other) * 5e-6, 1e-12)
            return abs(value - other) <= tolerance
                ? [] : ["\(path) is \(number) in the excerpt, \(other) in the committed run"]
        default:
            let same = "\(shown)" == "\(actual ?? "nil")"
            return same ? [] : ["\(path) is \(shown) in the excerpt, \(actual ?? "nothing") in the committed run"]
        }
    }

    private func jsonLeaves(_ value: Any) -> Int {
        switch value {
        case let object as [String: Any]: return object.values.map(jsonLeaves).reduce(0, +)
        case let list as [Any]: return list.map(jsonLeaves).reduce(0, +)
        default: return 1
        }
    }

    // MARK: names

    func testFindingsAndVariantsNamedInTheHandoutsExist() throws {
        let code = try sources(under: "Experiments").map { try String(contentsOf: $0, encoding: .utf8) }.joined(
            separator: "\n")
        let findingID = try Regex(#"\b(?:runloop|pool|dance|callback)\.[a-z0-9]+(?:-[a-z0-9]+)+"#)
        let variantList = try Regex(#"--variant[ =]([A-Za-z0-9@,_-]+)"#)
        let declaredVariants = Set(
            LabCatalog.standard.entries.flatMap { entry in
                (entry.definition.variants + (entry.definition.sweep?.variants ?? [])).map(\.name)
            })
        var checked = 0
        for document in try documents() {
            for (index, line) in document.lines.enumerated() {
                let place = "\(document.path):\(index + 1)"
                for match in line.matches(of: findingID) {
                    let id = String(line[match.range])
                    XCTAssertTrue(code.contains("\"\(id)\""), "\(place): no finding \(id) in Experiments/")
                    checked += 1
                }
                for match in line.matches(of: variantList) {
                    for name in (match.output[1].substring ?? "").split(separator: ",").map(String.init)
                    where name.count > 1 && name != name.uppercased() {
                        // A variant some experiment declares (a sweep's family included), whatever
                        // way its name is spelled in the source (`name@callers` is built).
                        XCTAssertTrue(declaredVariants.contains(name), "\(place): no variant \(name) in Experiments/")
                        checked += 1
                    }
                }
            }
        }
        XCTAssertGreaterThan(checked, 30)
    }

    func testSourceLinesNamedInTheHandoutsExist() throws {
        var files: [String: [URL]] = [:]
        for folder in ["Sources", "Experiments", "Tests"] {
            for url in try sources(under: folder) { files[url.lastPathComponent, default: []].append(url) }
        }
        let reference = try Regex(
            #"(?:([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*) \()?\b([A-Za-z0-9_+]+\.(?:swift|c|h)):([0-9]+)"#)
        var checked = 0
        for document in try documents() {
            for (index, line) in document.lines.enumerated() {
                for match in line.matches(of: reference) {
                    let place = "\(document.path):\(index + 1)"
                    let name = String(match.output[3].substring ?? "")
                    let number = Int(match.output[4].substring ?? "") ?? 0
                    guard let candidates = files[name], candidates.count == 1, let file = candidates.first else {
                        XCTFail(
                            "\(place): \(name) is \(files[name] == nil ? "not a source file of this package" : "ambiguous")"
                        )
                        continue
                    }
                    let lines = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")
                    guard number >= 1, number <= lines.count else {
                        XCTFail("\(place): \(name) has no line \(number)")
                        continue
                    }
                    let code = trimmed(lines[number - 1])
                    XCTAssertFalse(
                        code.isEmpty || code.hasPrefix("//") || code.hasPrefix("///") || code.hasPrefix("*"),
                        "\(place): \(name):\(number) is no longer code: \(code)")
                    if let method = match.output[2].substring {
                        // The frame's line must be inside that function's body: the nearest
                        // `func` at or above it is `method`, and its closing brace comes after.
                        if let body = Self.enclosingFunction(of: number, in: lines) {
                            XCTAssertEqual(
                                body.name, String(method),
                                "\(place): \(name):\(number) is in func \(body.name) (\(name):\(body.start)), not in \(method)"
                            )
                            // And that function belongs to the frame's type: two types of one
                            // file may each have a `load`.
                            if let type = match.output[1].substring {
                                let owner = Self.enclosingType(ofLine: body.start, in: lines)
                                let ownerText = owner.map { "type \($0)" } ?? "no type"
                                XCTAssertEqual(
                                    owner, String(type),
                                    "\(place): \(name):\(number) is in func \(body.name) of \(ownerText) (\(name):\(body.start)), not of \(type)"
                                )
                            }
                            if let end = body.end {
                                XCTAssertTrue(
                                    number < end || (number == end && trimmed(lines[end - 1]) != "}"),
                                    "\(place): \(name):\(number) is past the end of func \(body.name) (\(name):\(body.start)-\(end))"
                                )
                            } else {
                                XCTFail("\(place): func \(body.name) (\(name):\(body.start)) has no closing brace")
                            }
                        } else {
                            XCTFail(
                                "\(place): no func is declared at or above \(name):\(number), so it is not in \(method)"
                            )
                        }
                    }
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(checked, 3)
    }

    /// The type whose body holds line `number` (1-based) of a Swift file: the innermost `class`,
    /// `struct`, `enum`, `actor`, `protocol` or `extension` whose braces are open there (for an
    /// extension of `A.B`, `B`), or `nil` at file scope. Braces are counted from the top of the
    /// file as `enclosingFunction` counts them.
    static func enclosingType(ofLine number: Int, in lines: [String]) -> String? {
        guard number >= 1, number <= lines.count else { return nil }
        return enclosingTypes(in: lines)[number - 1]
    }

    /// `enclosingType(ofLine:in:)` of every line at once (element `i` for line `i + 1`), in one
    /// pass over the file: for callers that ask about many lines of it.
    static func enclosingTypes(in lines: [String]) -> [String?] {
        // `class func` and `class var` declare members, not a type.
        let declaration = try! Regex(
            #"\b(?:class|struct|enum|actor|protocol|extension)\s+(?!func\b|var\b|let\b)([A-Za-z_][A-Za-z0-9_.]*)"#)
        var types: [String?] = []
        types.reserveCapacity(lines.count)
        var open: [String?] = []  // one entry per open brace: the type it opened, if any
        var pending: String?  // a type declared, its brace not yet seen
        var scanner = BraceScanner()
        for line in lines {
            types.append(open.last(where: { $0 != nil }) ?? nil)
            if !scanner.inComment, !line.trimmingCharacters(in: .whitespaces).hasPrefix("//"),
                let match = line.firstMatch(of: declaration),
                !line[..<match.range.lowerBound].contains("\"")
            {
                pending = String(match.output[1].substring ?? "").split(separator: ".").last.map(String.init)
            }
            for brace in scanner.braces(in: line) {
                if brace == "{" {
                    open.append(pending)
                    pending = nil
                } else if !open.isEmpty {
                    open.removeLast()
                }
            }
        }
        return types
    }

    /// Finds the braces that are code: not in a string literal (single-line or `"""`), a `//`
    /// comment or a `/* */` comment. Keeps its state from one line to the next.
    struct BraceScanner {
        private(set) var inBlockComment = false
        private(set) var inMultilineString = false
        var inComment: Bool { inBlockComment || inMultilineString }

        /// The code braces of `line`, from character `start` on, with their offsets.
        mutating func braceOffsets(in line: String, from start: Int = 0) -> [(offset: Int, brace: Character)] {
            let characters = Array(line)
            var found: [(offset: Int, brace: Character)] = []
            var inString = false
            var position = start
            func tripleQuote(at index: Int) -> Bool {
                index + 2 < characters.count && characters[index] == "\"" && characters[index + 1] == "\""
                    && characters[index + 2] == "\""
            }
            while position < characters.count {
                let character = characters[position]
                let next = position + 1 < characters.count ? characters[position + 1] : " "
                if inMultilineString {
                    if tripleQuote(at: position) { inMultilineString = false; position += 2 }
                } else if inBlockComment {
                    if character == "*" && next == "/" { inBlockComment = false; position += 1 }
                } else if inString {
                    if character == "\\" { position += 1 } else if character == "\"" { inString = false }
                } else if tripleQuote(at: position) {
                    inMultilineString = true
                    position += 2
                } else if character == "/" && next == "/" {
                    break
                } else if character == "/" && next == "*" {
                    inBlockComment = true
                    position += 1
                } else if character == "\"" {
                    inString = true
                } else if character == "{" || character == "}" {
                    found.append((position, character))
                }
                position += 1
            }
            // A single-line string literal does not run on past its line.
            return found
        }

        mutating func braces(in line: String) -> [Character] { braceOffsets(in: line).map(\.brace) }
    }

    /// The function whose body holds line `number` (1-based) of a Swift file, as far as a
    /// `Type.method (File.swift:LINE)` frame needs: the nearest line at or above it that declares
    /// a `func`, and the line of the brace that closes that function (braces counted from the
    /// declaration, skipping string literals and `//` comments), or `nil` when none closes it.
    static func enclosingFunction(of number: Int, in lines: [String]) -> (name: String, start: Int, end: Int?)? {
        let declaration = try! Regex(#"\bfunc\s+([A-Za-z_][A-Za-z0-9_]*|`[^`]+`)"#)
        guard number >= 1, number <= lines.count else { return nil }
        var start = number
        var name: String?
        while start >= 1 {
            let code = lines[start - 1].trimmingCharacters(in: .whitespaces)
            if !code.hasPrefix("//") && !code.hasPrefix("*"), let match = lines[start - 1].firstMatch(of: declaration) {
                name = String(match.output[1].substring ?? "").replacingOccurrences(of: "`", with: "")
                break
            }
            start -= 1
        }
        guard let name else { return nil }
        var depth = 0
        var opened = false
        var scanner = BraceScanner()
        for index in (start - 1)..<lines.count {
            var position = 0
            // The declaration's line counts from the `func` on (a closure above it on the same
            // line is not part of the function).
            if index == start - 1, let match = lines[index].firstMatch(of: declaration) {
                position = lines[index].distance(from: lines[index].startIndex, to: match.range.lowerBound)
            }
            for brace in scanner.braceOffsets(in: lines[index], from: position).map(\.brace) {
                if brace == "{" {
                    depth += 1
                    opened = true
                } else {
                    depth -= 1
                    if opened && depth == 0 { return (name, start, index + 1) }
                }
            }
        }
        return (name, start, nil)
    }

    func testAFrameMustNameALineInsideItsFunction() {
        let file = """
            struct Fetcher {
                /// Calls func helper first.
                func fetch() {
                    let text = "}"
                    helper { value in
                        print(value, text)
                    }
                }

                func helper(_ body: (Int) -> Void) {
                    body(1)
                }
            }
            """.components(separatedBy: "\n")
        XCTAssertEqual(Self.enclosingFunction(of: 4, in: file)?.name, "fetch")
        XCTAssertEqual(Self.enclosingFunction(of: 6, in: file)?.name, "fetch")
        XCTAssertEqual(
            Self.enclosingFunction(of: 6, in: file)?.end, 8, "the string's brace and the closure's are not the end")
        XCTAssertEqual(
            Self.enclosingFunction(of: 9, in: file)?.name, "fetch", "a line after fetch's body still finds fetch")
        XCTAssertEqual(Self.enclosingFunction(of: 9, in: file)?.end, 8, "so the end check is what rejects it")
        XCTAssertEqual(Self.enclosingFunction(of: 11, in: file)?.name, "helper")
        XCTAssertNil(Self.enclosingFunction(of: 1, in: file))
    }

    /// Two types of one file with a method of the same name: the frame's type must be the one
    /// that declares the function holding the line.
    func testAFrameMustNameTheTypeItsFunctionBelongsTo() {
        let file = """
            /// A doc comment that mentions class Decoy { and a brace.
            public enum Sloppy {
                public static func load() {
                    print("struct Inside {")
                }
            }

            public final class Racing: Sendable {
                struct Token {}
                let text = \"""
                    enum NotAType {
                    \"""
                public class func make() -> Racing { Racing() }
                public func load() async {
                    await work { value in print(value) }
                }
            }

            extension Outer.Inner {
                func load() {}
            }

            func free() {}
            """.components(separatedBy: "\n")
        XCTAssertEqual(Self.enclosingType(ofLine: 3, in: file), "Sloppy")
        XCTAssertEqual(
            Self.enclosingType(ofLine: 5, in: file), "Sloppy", "a type's name in a string is not a declaration")
        XCTAssertEqual(Self.enclosingType(ofLine: 9, in: file), "Racing")
        XCTAssertEqual(
            Self.enclosingType(ofLine: 14, in: file), "Racing",
            "a nested type that has closed, a multi-line string and a class func leave Racing the owner")
        XCTAssertEqual(Self.enclosingFunction(of: 15, in: file)?.start, 14)
        XCTAssertEqual(Self.enclosingType(ofLine: 20, in: file), "Inner", "an extension of Outer.Inner")
        XCTAssertNil(Self.enclosingType(ofLine: 23, in: file), "a function at file scope has no type")
        XCTAssertNil(Self.enclosingType(ofLine: 1, in: file))
    }

    /// The standalone programs the answers run (`notes/programs/*.swift`) must still compile with
    /// the command the answers give.
    func testTheProgramsTheAnswersRunTypecheck() throws {
        let folder = Self.root.appendingPathComponent("notes/programs")
        let programs = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".swift") }.sorted()
        XCTAssertFalse(programs.isEmpty, "notes/programs holds no program")
        let answers = try text("notes/answers.md")
        for program in programs {
            XCTAssertTrue(
                answers.contains("swiftc -swift-version 6 notes/programs/\(program)"),
                "notes/answers.md does not give the command that builds notes/programs/\(program)")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [
                "swiftc", "-typecheck", "-swift-version", "6", folder.appendingPathComponent(program).path,
            ]
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = errors
            try process.run()
            let output = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            if process.terminationStatus == 127 { throw XCTSkip("swiftc is not on PATH") }
            XCTAssertEqual(process.terminationStatus, 0, "notes/programs/\(program) does not typecheck:\n\(output)")
        }
    }

    /// The run sheet tells the instructor which rows to point at: each must be a row (or an
    /// outcome) of the committed run, which is what the room's run prints too.
    func testTheRowsTheRunSheetPointsAtExist() throws {
        let results = try XCTUnwrap(
            JSONSerialization.jsonObject(
                with: Data(contentsOf: Self.root.appendingPathComponent(Self.resultsJSON))) as? [String: Any])
        let variants = (results["experiments"] as? [[String: Any]] ?? [])
            .flatMap { $0["variants"] as? [[String: Any]] ?? [] }
        let known = Set(
            variants.compactMap { $0["name"] as? String } + variants.compactMap { $0["outcome"] as? String })
        let name = try Regex(#"`([a-z]+(?:-[a-z]+)+(?:@[a-z-]+)?)`"#)
        let lines = try text("notes/workshop.md").components(separatedBy: "\n")
        var inPointAt = false
        var checked = 0
        for (index, line) in lines.enumerated() {
            if line.hasPrefix("**Point at") { inPointAt = true }
            if trimmed(line).isEmpty { inPointAt = false }
            guard
                inPointAt || line.hasPrefix("| A.") || line.hasPrefix("| B.") || line.hasPrefix("| C.")
                    || line.hasPrefix("| D.")
            else { continue }
            for match in line.matches(of: name) {
                let row = String(match.output[1].substring ?? "")
                XCTAssertTrue(
                    known.contains(row),
                    "notes/workshop.md:\(index + 1): no row or outcome \(row) in \(Self.resultsJSON)")
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 10, "the run sheet names the rows to point at")
    }

    func testLinksBetweenTheDocumentsLeadSomewhere() throws {
        let link = try Regex(#"\]\(([A-Za-z0-9_./-]+\.md)(?:#([a-z0-9-]+))?\)"#)
        var checked = 0
        for document in try documents() {
            let folder = (document.path as NSString).deletingLastPathComponent
            for (index, line) in document.lines.enumerated() {
                for match in line.matches(of: link) {
                    let place = "\(document.path):\(index + 1)"
                    let target = (folder.isEmpty ? "" : folder + "/") + String(match.output[1].substring ?? "")
                    guard let text = try? text(target) else {
                        XCTFail("\(place): the link to \(target) leads nowhere")
                        continue
                    }
                    if let anchor = match.output[2].substring {
                        let slugs = text.components(separatedBy: "\n").filter { $0.hasPrefix("#") }.map(slug)
                        XCTAssertTrue(slugs.contains(String(anchor)), "\(place): \(target) has no heading #\(anchor)")
                    }
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(checked, 10)
    }

    /// GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens.
    private func slug(_ heading: String) -> String {
        let title = heading.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
        return String(
            title.compactMap { character -> Character? in
                if character == " " { return "-" }
                return character.isLetter || character.isNumber || character == "-" || character == "_"
                    ? character : nil
            })
    }

    func testTheConventionCatchesAWrongFigure() throws {
        let results: [String: Any] = [
            "elapsed_s": 44.367,
            "experiments": [
                [
                    "experiment": "runloop",
                    "findings": [
                        ["applicable": true, "reproduced": true], ["applicable": false, "reproduced": false],
                    ],
                    "variants": [
                        ["name": "shared-thread", "metrics": ["lateness.p99_ms": 1.15414, "wall_s": 23.0008]]
                    ],
                ]
            ],
        ]
        XCTAssertEqual(metric("runloop/shared-thread", "lateness.p99_ms", in: results), 1.15414)
        XCTAssertEqual(metric("lab", "elapsed_s", in: results), 44.367)
        XCTAssertEqual(metric("lab", "findings.applicable", in: results), 1)
        XCTAssertNil(metric("runloop/shared-thread", "lateness.p50_ms", in: results))
        XCTAssertEqual(try XCTUnwrap(convert(4.7961e-05, from: "library.held_s", to: "µs")), 47.961, accuracy: 1e-9)
        XCTAssertEqual(try XCTUnwrap(convert(0.966, from: "cpu_per_wall", to: "%")), 96.6, accuracy: 1e-9)
        XCTAssertNil(convert(1, from: "passes", to: "ms"))
    }

    // MARK: helpers

    private func trimmed(_ line: String) -> String { line.trimmingCharacters(in: .whitespaces) }

    private func sources(under folder: String) throws -> [URL] {
        let base = Self.root.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return [] }
        return walker.compactMap { $0 as? URL }
            .filter { ["swift", "c", "h"].contains($0.pathExtension) && !$0.path.contains("/.build/") }
    }
}
