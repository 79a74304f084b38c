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
///   `notes/results/linux-2cores/results.md` (the committed run's report page). After
///   regenerating the results, paste the new rows.
/// - **A figure**: the number followed by `<!--r EXPERIMENT/VARIANT METRIC-->` (or
///   `<!--r lab KEY-->` for the whole run: `elapsed_s`, `findings.reproduced`,
///   `findings.applicable`). The number is compared with the metric of
///   `notes/results/linux-2cores.json`, rounded to the decimals the text shows, in the metric's
///   own unit, or in the unit named after the metric (`s`, `ms`, `µs`, `%`, `k`).
/// - **Names**: every finding id (`runloop.…`, `pool.…`, `dance.…`, `callback.…`), every name
///   after `--variant`, and every `File.swift:LINE` must still exist in the code; a
///   `Type.method (File.swift:LINE)` frame must have `func method` at or above that line.
///
/// Figures that are not from the committed run are not checked here; the text names the
/// command that printed them.
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
        let page = Set(try text(Self.resultsPage).components(separatedBy: "\n").map(trimmed))
        var checked = 0
        for document in try documents() {
            // A marker is a line of its own; one inside a sentence (this convention described) is not.
            for (index, line) in document.lines.enumerated() where trimmed(line).hasPrefix("<!-- from:") {
                XCTAssertEqual(trimmed(line), "<!-- from: results.md -->",
                               "\(document.path):\(index + 1): the only source a block may quote is results.md (\(Self.resultsPage))")
                let block = quotedBlock(after: index, in: document.lines)
                XCTAssertFalse(block.isEmpty, "\(document.path):\(index + 1): no block follows the marker")
                for (lineIndex, quoted) in block where !page.contains(trimmed(quoted)) {
                    XCTFail("\(document.path):\(lineIndex + 1): this quoted line is not a line of \(Self.resultsPage) (regenerated? paste the new one): \(quoted)")
                }
                checked += block.count
            }
        }
        XCTAssertGreaterThan(checked, 80, "the handouts quote the committed run's tables; did the marker change?")
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
        let results = try XCTUnwrap(JSONSerialization.jsonObject(
            with: Data(contentsOf: Self.root.appendingPathComponent(Self.resultsJSON))) as? [String: Any])
        let marker = try Regex(#"<!--r ([^ >]+) ([A-Za-z0-9_.@-]+)(?: ([a-zµ%]+))?-->"#)
        let number = try Regex(#"-?[0-9][0-9,]*(?:\.[0-9]+)?"#)
        var checked = 0
        for document in try documents() {
            for (index, line) in document.lines.enumerated() {
                for match in line.matches(of: marker) {
                    // A marker in a code span (`<!--r ...-->`) shows the convention; it marks nothing.
                    if match.range.lowerBound > line.startIndex, line[line.index(before: match.range.lowerBound)] == "`" { continue }
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
                        XCTFail("\(place): \(written) is not \(subject) \(key) of \(Self.resultsJSON), which shows as \(rounded)\(unit.map { " " + $0 } ?? "")")
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
        guard let experiment = experiments.first(where: { $0["experiment"] as? String == parts.first }) else { return nil }
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

    // MARK: names

    func testFindingsAndVariantsNamedInTheHandoutsExist() throws {
        let code = try sources(under: "Experiments").map { try String(contentsOf: $0, encoding: .utf8) }.joined(separator: "\n")
        let findingID = try Regex(#"\b(?:runloop|pool|dance|callback)\.[a-z0-9]+(?:-[a-z0-9]+)+"#)
        let variantList = try Regex(#"--variant[ =]([A-Za-z0-9@,_-]+)"#)
        let declaredVariants = Set(LabCatalog.standard.entries.flatMap { entry in
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
        let reference = try Regex(#"(?:([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*) \()?\b([A-Za-z0-9_+]+\.(?:swift|c|h)):([0-9]+)"#)
        var checked = 0
        for document in try documents() {
            for (index, line) in document.lines.enumerated() {
                for match in line.matches(of: reference) {
                    let place = "\(document.path):\(index + 1)"
                    let name = String(match.output[3].substring ?? "")
                    let number = Int(match.output[4].substring ?? "") ?? 0
                    guard let candidates = files[name], candidates.count == 1, let file = candidates.first else {
                        XCTFail("\(place): \(name) is \(files[name] == nil ? "not a source file of this package" : "ambiguous")")
                        continue
                    }
                    let lines = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")
                    guard number >= 1, number <= lines.count else {
                        XCTFail("\(place): \(name) has no line \(number)")
                        continue
                    }
                    let code = trimmed(lines[number - 1])
                    XCTAssertFalse(code.isEmpty || code.hasPrefix("//") || code.hasPrefix("///") || code.hasPrefix("*"),
                                   "\(place): \(name):\(number) is no longer code: \(code)")
                    if let method = match.output[2].substring {
                        let declared = lines[..<number].contains { $0.contains("func \(method)") }
                        XCTAssertTrue(declared, "\(place): \(method) is not declared at or above \(name):\(number)")
                    }
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(checked, 3)
    }

    /// The run sheet tells the instructor which rows to point at: each must be a row (or an
    /// outcome) of the committed run, which is what the room's run prints too.
    func testTheRowsTheRunSheetPointsAtExist() throws {
        let results = try XCTUnwrap(JSONSerialization.jsonObject(
            with: Data(contentsOf: Self.root.appendingPathComponent(Self.resultsJSON))) as? [String: Any])
        let variants = (results["experiments"] as? [[String: Any]] ?? [])
            .flatMap { $0["variants"] as? [[String: Any]] ?? [] }
        let known = Set(variants.compactMap { $0["name"] as? String } + variants.compactMap { $0["outcome"] as? String })
        let name = try Regex(#"`([a-z]+(?:-[a-z]+)+(?:@[a-z-]+)?)`"#)
        let lines = try text("notes/workshop.md").components(separatedBy: "\n")
        var inPointAt = false
        var checked = 0
        for (index, line) in lines.enumerated() {
            if line.hasPrefix("**Point at") { inPointAt = true }
            if trimmed(line).isEmpty { inPointAt = false }
            guard inPointAt || line.hasPrefix("| A.") || line.hasPrefix("| B.") || line.hasPrefix("| C.") || line.hasPrefix("| D.") else { continue }
            for match in line.matches(of: name) {
                let row = String(match.output[1].substring ?? "")
                XCTAssertTrue(known.contains(row), "notes/workshop.md:\(index + 1): no row or outcome \(row) in \(Self.resultsJSON)")
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
        return String(title.compactMap { character -> Character? in
            if character == " " { return "-" }
            return character.isLetter || character.isNumber || character == "-" || character == "_" ? character : nil
        })
    }

    func testTheConventionCatchesAWrongFigure() throws {
        let results: [String: Any] = ["elapsed_s": 44.367, "experiments": [[
            "experiment": "runloop",
            "findings": [["applicable": true, "reproduced": true], ["applicable": false, "reproduced": false]],
            "variants": [["name": "shared-thread", "metrics": ["lateness.p99_ms": 1.15414, "wall_s": 23.0008]]],
        ]]]
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
