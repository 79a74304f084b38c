import LabHarness
import XCTest

final class CommandLineTests: XCTestCase {
    private let parser = CommandLineParser(
        program: "exp-test",
        flags: [
            FlagSpec("quick", .toggle, help: ""),
            .integer("tasks", default: 300, quick: 30, range: 1...5000, help: "requests"),
            .seconds("timeout", default: 1, quick: 0.2, range: 0.01...60, help: "timer"),
            .choice("caller", ["global", "thread", "async"], default: "global", help: "callers"),
            FlagSpec("variant", .list(["a", "b", "c"]), help: ""),
        ])

    private func message(_ arguments: [String]) -> String? {
        do { _ = try parser.parse(arguments); return nil } catch let error as UsageError { return error.message } catch
        { return "\(error)" }
    }

    func testDefaultsQuickDefaultsAndGivenValues() throws {
        let plain = try parser.parse([])
        XCTAssertEqual(plain.int("tasks"), 300)
        XCTAssertEqual(plain.double("timeout"), 1)
        XCTAssertEqual(plain.string("caller"), "global")
        XCTAssertEqual(plain.list("variant"), [])

        let quick = try parser.parse(["--quick"])
        XCTAssertEqual(quick.int("tasks"), 30)
        XCTAssertEqual(quick.double("timeout"), 0.2)

        let given = try parser.parse([
            "--quick", "--tasks=12", "--timeout", "0.5", "--caller", "async", "--variant", "b,a,b",
        ])
        XCTAssertEqual(given.int("tasks"), 12, "a given value beats the quick default")
        XCTAssertEqual(given.double("timeout"), 0.5)
        XCTAssertEqual(given.string("caller"), "async")
        XCTAssertEqual(given.list("variant"), ["b", "a"])
        XCTAssertTrue(given.wasGiven("tasks"))
        XCTAssertFalse(plain.wasGiven("tasks"))
    }

    /// Every mistake is one line that names the flag, what was wrong and what is valid.
    func testBadInputGetsOneClearLine() {
        let cases: [([String], String)] = [
            (["--tasks", "abc"], "--tasks takes a whole number from 1 to 5000, not 'abc'"),
            (["--tasks", "0"], "--tasks 0 is out of range: a whole number from 1 to 5000"),
            (["--tasks", "-5"], "--tasks -5 is out of range: a whole number from 1 to 5000"),
            (
                ["--tasks", "99999999999999999999"],
                "--tasks takes a whole number from 1 to 5000, not '99999999999999999999'"
            ),
            (["--tasks"], "--tasks needs a value: a whole number from 1 to 5000"),
            (["--timeout", "nan"], "--timeout takes a number from 0.01 to 60 s, not 'nan'"),
            (["--timeout", "inf"], "--timeout takes a number from 0.01 to 60 s, not 'inf'"),
            (["--timeout", "1e9"], "--timeout 1e9 is out of range: a number from 0.01 to 60 s"),
            (["--caller", "queue"], "--caller: unknown value 'queue' (valid: global, thread, async)"),
            (["--variant", "a,z"], "--variant: unknown name 'z' (valid: a, b, c)"),
            (["--variant", "a,,b"], "--variant has an empty name in 'a,,b' (valid: a, b, c)"),
            (
                ["--frobnicate"],
                "unknown flag '--frobnicate' (valid flags: --quick, --tasks, --timeout, --caller, --variant)"
            ),
            (["tasks"], "unexpected argument 'tasks' (flags start with --; see --help)"),
            (["--quick=yes"], "--quick takes no value"),
            (["--tasks", "3", "--tasks", "4"], "--tasks is given twice"),
        ]
        for (arguments, expected) in cases {
            XCTAssertEqual(message(arguments), expected, "\(arguments)")
            XCTAssertFalse(expected.contains("\n"))
        }
    }

    func testHelpListsEveryVisibleFlagVariantAndFinding() {
        let definition = ExperimentDefinition(
            name: "t", executable: "exp-t", question: "What?", about: "About it.",
            flags: [
                .integer("tasks", default: 300, quick: 30, range: 1...5000, help: "requests in flight"),
                .toggle("inner-stage", help: "internal: a stage the experiment runs itself", hidden: true),
            ],
            variants: [
                Variant(
                    "only", summary: "the only one", expect: [OutcomeExpectation(.completed, .expected, "fine")],
                    claim: Claim("t.only-completes", "it completes")
                ) { _ in
                    VariantRecord(outcome: .completed, mechanism: .seen("it ran to the end"))
                }
            ],
            findings: [])
        let help = HelpText.render(definition)
        for expected in [
            "exp-t: What?", "About it.", "--tasks N", "requests in flight", "default 300, --quick 30",
            "--json", "--quick", "--variant", "--trials", "--jobs", "only", "the only one",
            "expected completed: fine", "t.only-completes", "it completes", "exit status",
        ] {
            XCTAssertTrue(help.contains(expected), "help lacks '\(expected)'")
        }
        XCTAssertFalse(help.contains("--child-variant"), "internal flags stay out of --help")
        XCTAssertFalse(help.contains("--inner-stage"), "an experiment's hidden flags stay out of --help too")
    }

    func testEchoedValuesAreEscapedAndCutToEightyCharacters() {
        let long = String(repeating: "9", count: 100_000)
        for arguments in [
            ["--tasks", "12\nsecond line"], ["--tasks", long], ["--caller", "a\u{1B}[31mred"], ["--variant", "a,b\nc"],
            ["--bogus\nflag"], ["stray\rword"], ["--timeout", long],
        ] {
            guard let text = message(arguments) else { XCTFail("\(arguments) was accepted"); continue }
            XCTAssertFalse(text.contains("\n") || text.contains("\r") || text.contains("\u{1B}"), "escaped: \(text)")
            XCTAssertLessThan(text.count, 300, "cut: \(text.prefix(120))")
        }
        XCTAssertEqual(UsageError.echo("a\nb"), "a\\nb")
        XCTAssertEqual(UsageError.echo(long).count, 81, "80 characters and an ellipsis")
        XCTAssertEqual(UsageError.echo("plain value"), "plain value")
    }
}
