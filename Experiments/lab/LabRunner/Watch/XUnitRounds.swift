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
/// XCTest's file is written when SwiftPM would write one (`--parallel`), Swift Testing's unless
/// it is disabled; with `--disable-xctest`, Swift Testing's goes to PATH itself (SwiftPM 6.3.1,
/// measured). A file at the user's path is always written anew, so none is left from an
/// earlier run.
struct XUnitRounds {
    /// The user's path, as given: relative to the working directory, as SwiftPM reads it.
    let path: String
    let folder: String
    /// Which files SwiftPM writes for this command.
    let writesXCTest: Bool
    let writesSwiftTesting: Bool
    /// `--disable-xctest`: Swift Testing's file is at the path itself.
    let swiftTestingAlone: Bool

    init?(_ invocation: SwiftTestInvocation) {
        let options = invocation.options
        guard let path = options.last(where: { $0.name == "--xunit-output" })?.value else { return nil }
        func has(_ flag: String) -> Bool { options.contains { $0.name == flag } }
        self.path = path
        swiftTestingAlone = has("--disable-xctest")
        writesXCTest = invocation.parallel && !swiftTestingAlone
        writesSwiftTesting = !has("--disable-swift-testing")
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

    /// This command's file of one framework at `path` (the user's, or a round's).
    func file(swiftTesting: Bool, at path: String) -> String {
        swiftTesting && !swiftTestingAlone ? XUnitRounds.swiftTestingPath(path) : path
    }

    func roundPath(_ round: Int) -> String { folder + "/round-\(round).xml" }

    /// `command` with its `--xunit-output` writing round `round`'s file, always as two words:
    /// SwiftPM 6.3.1 reads `--xunit-output=P` otherwise than `--xunit-output P` (measured with
    /// `--parallel`: the first wrote Swift Testing's results to P and no XCTest file, the second
    /// XCTest's to P and Swift Testing's beside it).
    func command(_ command: [String], round: Int) -> [String] {
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        guard let invocation = SwiftTestInvocation(command) else { return command }
        let options = invocation.options.flatMap {
            $0.name == "--xunit-output" && $0.value != nil ? ["--xunit-output", roundPath(round)] : $0.tokens
        }
        return command.dropLast(invocation.arguments.count) + options
    }

    /// One `<testcase>` element, as written, with what the merge needs of it: its classname and
    /// name unescaped (Swift Testing writes ``name="`it's > 0`()"`` as it is, `lab watch`
    /// escapes), which key it.
    struct Case: Equatable {
        var classname: String
        var name: String
        var xml: String
        var time: Double

        /// Whether it is a failure or an error.
        var fails: Bool { xml.contains("<failure") || xml.contains("<error") }
    }

    /// What `lab watch` itself says of a test, for the files.
    struct Verdict {
        var id: String
        var ending: TestProgress.Ending
        /// Why, in the summary's words: where it hung or crashed, what held it from running.
        var message: String?
    }

    /// Writes each file at the user's path, both tried before the first error is thrown
    /// (`AtomicFile`'s); the folder is removed. `extra`: cases of `lab watch`'s own that no test
    /// is (a class held in its `tearDown()`; what ended the run outside every test), added to the
    /// first file written (XCTest's when it is written). A run that ends with `status` other than
    /// 0 while no case of either file fails gets a case saying so there too: a file read alone
    /// (a CI's test report) never reads passed for a run that failed.
    func write(rounds: Int, verdicts: [Verdict], extra: [Case] = [], status: Int32 = 0) throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var documents: [(target: String, cases: [Case])] = []
        // With `--disable-xctest` there is no XCTest file: Swift Testing's is at the path itself.
        for swiftTesting in swiftTestingAlone ? [true] : [false, true] {
            let files = (1...max(1, rounds)).map { file(swiftTesting: swiftTesting, at: roundPath($0)) }
                .compactMap { try? String(contentsOfFile: $0, encoding: .utf8) }
            guard !files.isEmpty || (swiftTesting ? writesSwiftTesting : writesXCTest) else { continue }
            let own = verdicts.filter { TestList.isSwiftTesting($0.id) == swiftTesting }
            let cases = XUnitRounds.merge(files.map(XUnitRounds.cases(in:)), verdicts: own)
            documents.append((file(swiftTesting: swiftTesting, at: path), cases))
        }
        guard !documents.isEmpty else { return }
        documents[0].cases += extra
        if status != 0, !documents.contains(where: { $0.cases.contains(where: \.fails) }) {
            documents[0].cases.append(
                XUnitRounds.testCase(
                    classname: "lab watch", name: "swift test", ending: .failed,
                    message: "swift test ended with status \(status), and no test failed: its output says why"))
        }
        var failure: Error?
        for (target, cases) in documents {
            do {
                try AtomicFile.write(XUnitRounds.document(cases), to: URL(fileURLWithPath: target))
            } catch { failure = failure ?? error }
        }
        if let failure { throw failure }
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
    /// write them (`Module.Class` and `test`; `Module.Suite.Inner` and `f()`; `Module` and `f()`
    /// for a test at the module's top level, whose id is `Module.f()`).
    static func testCase(_ verdict: Verdict) -> Case {
        let parts =
            TestList.topLevel(verdict.id).map { [String($0.module), String($0.function)] }
            ?? verdict.id.split(separator: "/").map(String.init)
        let classname = parts.dropLast().joined(separator: ".")
        let name = parts.last ?? verdict.id
        return testCase(classname: classname, name: name, ending: verdict.ending, message: verdict.message)
    }

    static func testCase(classname: String, name: String, ending: TestProgress.Ending, message: String?) -> Case {
        let attribute = message.map { " message=\"\(escaped($0))\"" } ?? ""
        let inner =
            switch ending {
            case .passed: ""
            case .skipped: "<skipped\(attribute) />"
            case .failed: "<failure message=\"\(escaped(message ?? "failed: its messages are in the run's output"))\" />"
            case .crashed, .hung: "<failure\(attribute) />"
            case .notRun: "<error\(attribute) />"
            }
        let open = "<testcase classname=\"\(escaped(classname))\" name=\"\(escaped(name))\" time=\"0\""
        return Case(
            classname: classname, name: name,
            xml: inner.isEmpty ? open + " />" : open + ">\n      \(inner)\n    </testcase>", time: 0)
    }

    /// The `<testcase>` elements of a file as SwiftPM and Swift Testing write them.
    static func cases(in text: String) -> [Case] {
        var result: [Case] = []
        var rest = text[...]
        while let start = rest.range(of: "<testcase ") {
            // The tag's end: the first `>` outside an attribute's quotes (Swift Testing writes
            // ``name="`x > 0`()"`` as it is).
            var quoted = false
            let close = rest[start.upperBound...].firstIndex { character in
                if character == "\"" { quoted.toggle() }
                return character == ">" && !quoted
            }
            guard let close else { break }
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
                return tag[from.upperBound...].firstIndex(of: "\"").map { unescaped(tag[from.upperBound..<$0]) }
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

    /// `text` for an attribute's value. A control character other than tab and newline (ESC of
    /// a colour in a stack's line) has no place in XML 1.0, even escaped: it is dropped.
    static func escaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\n": result += "&#10;"
            case "\t": result += "&#9;"
            default: if scalar.value >= 0x20 && scalar.value != 0x7f { result.unicodeScalars.append(scalar) }
            }
        }
        return result
    }

    /// An attribute's value as written, its entities read (`&quot;`, `&#10;`, `&#x27;`).
    static func unescaped(_ text: Substring) -> String {
        guard text.contains("&") else { return String(text) }
        var result = ""
        var rest = text
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            guard let semicolon = rest[amp...].firstIndex(of: ";") else { break }
            let entity = rest[rest.index(after: amp)..<semicolon]
            let named = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'"][String(entity)]
            let number =
                entity.hasPrefix("#x") ? UInt32(entity.dropFirst(2), radix: 16)
                : entity.hasPrefix("#") ? UInt32(entity.dropFirst()) : nil
            if let text = named ?? number.flatMap(Unicode.Scalar.init).map({ String(Character($0)) }) {
                result += text
            } else {
                result += rest[amp...semicolon]
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return result + rest
    }
}
