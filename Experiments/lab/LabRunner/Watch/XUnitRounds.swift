import Foundation
import LabHarness

/// `swift test --xunit-output PATH` under `lab watch`, whose reruns would each write PATH anew.
///
/// SwiftPM writes XCTest's results to PATH (with `--parallel` only) and Swift Testing's beside
/// it, `-swift-testing` put before the extension (`out.xml`: `out-swift-testing.xml`), each as
/// its run ends. After a hang's rerun the files held the last round's tests only, and a round
/// that `lab watch` ended wrote none. Each round now writes to a folder of `lab watch`'s own;
/// at the end each file is written at the user's path with every round's test cases (a test's
/// last), `lab watch`'s verdict for each test it found hung, crashed or not run (its summary's
/// words), and a case for each test whose verdict was read from a round that wrote no file.
/// XCTest's file is written only when SwiftPM wrote one in some round, as it does with
/// `--parallel`.
struct XUnitRounds {
    /// The user's path, as given: relative to the working directory, as SwiftPM reads it.
    let path: String
    let folder: String

    init?(_ invocation: SwiftTestInvocation) {
        guard let path = invocation.options.last(where: { $0.name == "--xunit-output" })?.value else { return nil }
        self.path = path
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lab-watch-xunit-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        ).path
    }

    /// Where Swift Testing's results go when XCTest's go to `path` (SwiftPM 6.3, measured).
    static func swiftTestingPath(_ path: String) -> String {
        let ext = (path as NSString).pathExtension
        guard !ext.isEmpty else { return path + "-swift-testing" }
        return String(path.dropLast(ext.count + 1)) + "-swift-testing." + ext
    }

    func roundPath(_ round: Int) -> String { folder + "/round-\(round).xml" }

    /// `command` with its `--xunit-output` writing round `round`'s file, always as two words:
    /// SwiftPM 6.3.1 reads `--xunit-output=P` otherwise than `--xunit-output P` (measured with
    /// `--parallel`: the first wrote Swift Testing's results to P and no XCTest file, the second
    /// XCTest's to P and Swift Testing's beside it).
    func command(_ command: [String], round: Int) -> [String] {
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var result: [String] = []
        var index = 0
        while index < command.count {
            let token = command[index]
            if token == "--xunit-output", index + 1 < command.count {
                result += [token, roundPath(round)]
                index += 1
            } else if token.hasPrefix("--xunit-output=") {
                result += ["--xunit-output", roundPath(round)]
            } else if SwiftTestInvocation.valued.contains(token), index + 1 < command.count {
                result += [token, command[index + 1]]  // an option's value, whatever it reads
                index += 1
            } else {
                result.append(token)
            }
            index += 1
        }
        return result
    }

    /// One `<testcase>` element, as written, with what the merge needs of it.
    struct Case: Equatable {
        var classname: String
        var name: String
        var xml: String
        var time: Double
    }

    /// What `lab watch` itself says of a test, for the files.
    struct Verdict {
        var id: String
        var ending: TestProgress.Ending
        /// Why, in the summary's words: where it hung or crashed, what held it from running.
        var message: String?
    }

    /// Writes each file at the user's path; the folder is removed. Throws `AtomicFile`'s errors.
    func write(rounds: Int, verdicts: [Verdict]) throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for swiftTesting in [false, true] {
            let files = (1...max(1, rounds)).map { roundPath($0) }.map {
                swiftTesting ? XUnitRounds.swiftTestingPath($0) : $0
            }.compactMap { try? String(contentsOfFile: $0, encoding: .utf8) }
            let own = verdicts.filter { TestList.isSwiftTesting($0.id) == swiftTesting }
            guard !files.isEmpty || (swiftTesting && !own.isEmpty) else { continue }
            let cases = XUnitRounds.merge(files.map(XUnitRounds.cases(in:)), verdicts: own)
            let target = swiftTesting ? XUnitRounds.swiftTestingPath(path) : path
            try AtomicFile.write(XUnitRounds.document(cases), to: URL(fileURLWithPath: target))
        }
    }

    /// Every round's cases, a later round's replacing an earlier one's of the same test; then
    /// `lab watch`'s verdicts: a hang, crash or test not run replaces the file's case (a killed
    /// test's process is a failure to SwiftPM, a hang to `lab watch`), and any verdict that no
    /// file holds is added.
    static func merge(_ rounds: [[Case]], verdicts: [Verdict]) -> [Case] {
        var cases: [Case] = []
        var index: [String: Int] = [:]
        func put(_ item: Case, replacing: Bool) {
            let key = item.classname + "\u{0}" + item.name
            if let at = index[key] {
                if replacing { cases[at] = item }
            } else {
                index[key] = cases.count
                cases.append(item)
            }
        }
        for round in rounds { for item in round { put(item, replacing: true) } }
        for verdict in verdicts {
            let judged = [.hung, .crashed, .notRun].contains(verdict.ending)
            put(testCase(verdict), replacing: judged)
        }
        return cases
    }

    /// The case `lab watch` writes for a verdict: classname and name as SwiftPM and Swift Testing
    /// write them (`Module.Class` and `test`; `Module.Suite.Inner` and `f()`).
    static func testCase(_ verdict: Verdict) -> Case {
        let parts = verdict.id.split(separator: "/").map(String.init)
        let classname = parts.dropLast().joined(separator: ".")
        let name = parts.last ?? verdict.id
        let message = verdict.message.map { " message=\"\(escaped($0))\"" } ?? ""
        let inner =
            switch verdict.ending {
            case .passed: ""
            case .skipped: "<skipped\(message) />"
            case .failed: "<failure message=\"failed: its messages are in the run's output\" />"
            case .crashed, .hung: "<failure\(message) />"
            case .notRun: "<error\(message) />"
            }
        let open = "<testcase classname=\"\(escaped(classname))\" name=\"\(escaped(name))\" time=\"0\""
        return Case(
            classname: escaped(classname), name: escaped(name),
            xml: inner.isEmpty ? open + " />" : open + ">\n      \(inner)\n    </testcase>", time: 0)
    }

    /// The `<testcase>` elements of a file as SwiftPM and Swift Testing write them.
    static func cases(in text: String) -> [Case] {
        var result: [Case] = []
        var rest = text[...]
        while let start = rest.range(of: "<testcase ") {
            guard let close = rest[start.upperBound...].firstIndex(of: ">") else { break }
            let end: String.Index
            if rest[rest.index(before: close)] == "/" {
                end = rest.index(after: close)
            } else if let closing = rest[close...].range(of: "</testcase>") {
                end = closing.upperBound
            } else {
                break
            }
            let tag = rest[start.lowerBound...close]
            func attribute(_ name: String) -> String? {
                guard let from = tag.range(of: " \(name)=\"") else { return nil }
                return tag[from.upperBound...].firstIndex(of: "\"").map { String(tag[from.upperBound..<$0]) }
            }
            if let classname = attribute("classname"), let name = attribute("name") {
                result.append(
                    Case(
                        classname: classname, name: name, xml: String(rest[start.lowerBound..<end]),
                        time: attribute("time").flatMap(Double.init) ?? 0))
            }
            rest = rest[end...]
        }
        return result
    }

    /// A file of `cases`, its counts taken from them.
    static func document(_ cases: [Case]) -> String {
        func count(_ tag: String) -> Int { cases.filter { $0.xml.contains("<\(tag)") }.count }
        let time = cases.reduce(0) { $0 + $1.time }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites>
              <testsuite name="TestResults" errors="\(count("error"))" tests="\(cases.count)" \
            failures="\(count("failure"))" skipped="\(count("skipped"))" time="\(time)">

            """ + cases.map { "    " + $0.xml + "\n" }.joined() + "  </testsuite>\n</testsuites>\n"
    }

    static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\n": result += "&#10;"
            default: result.append(character)
            }
        }
        return result
    }
}
