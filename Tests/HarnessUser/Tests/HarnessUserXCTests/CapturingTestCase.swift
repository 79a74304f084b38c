import Foundation
import LabHarnessXCTest
import Synchronization
import XCTest

/// A test case that can show a failure without failing: while `expectOneFailure` runs its
/// body, a failure XCTest is asked to record is captured instead (from any thread: the
/// assertions of an async test fail on the concurrency pool), then checked for its message,
/// file and line. A failure that ends the process is shown in a child (`runAloneInAChild`).
class CapturingTestCase: XCTestCase {
    /// Skips, with the harness's reason, a test whose verdict reads stack frames where this
    /// platform takes none (`StackCapture.unavailableReason`: Darwin today).
    func skipWithoutStacks() throws {
        if let reason = StackCapture.unavailableReason { throw XCTSkip(reason) }
    }

    struct Captured: Sendable {
        var description: String
        var file: String
        var line: Int
    }

    private let capture = Capture()

    override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int,
                                expected: Bool) {
        if !capture.take(Captured(description: description, file: filePath, line: lineNumber)) {
            super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
        }
    }

    /// Runs `body` capturing failures; then checks there was exactly one, at `line` of the
    /// caller's file, containing every one of `texts`. Returns its description.
    @discardableResult
    func expectOneFailure(atLine line: Int, containing texts: String..., file: StaticString = #filePath,
                          callerLine: UInt = #line, _ body: () -> Void) -> String {
        // In the copy that `assertInChildProcess` relaunched, the body's failures are the copy's
        // XCTest's to record (its status tells the parent): captured, they would pass the trial.
        if ClosureChildTrial.requestedSite != nil {
            body()
            return ""
        }
        capture.begin()
        body()
        return check(capture.end(), line: line, texts: texts, file: file, callerLine: callerLine)
    }

    /// `expectOneFailure` for an async body, on the caller's actor.
    @discardableResult
    func expectOneFailure(atLine line: Int, containing texts: String..., file: StaticString = #filePath,
                          callerLine: UInt = #line, isolation: isolated (any Actor)? = #isolation,
                          _ body: () async -> Void) async -> String {
        if ClosureChildTrial.requestedSite != nil {
            await body()
            return ""
        }
        capture.begin()
        await body()
        return check(capture.end(), line: line, texts: texts, file: file, callerLine: callerLine)
    }

    private func check(_ captured: [Captured], line: Int, texts: [String], file: StaticString,
                       callerLine: UInt) -> String {
        XCTAssertEqual(captured.count, 1, "\(captured)", file: file, line: callerLine)
        guard let failure = captured.first else { return "" }
        XCTAssertEqual(failure.line, line, "the failure points at the user's line", file: file, line: callerLine)
        let failedIn = (failure.file as NSString).lastPathComponent
        let callerFile = ("\(file)" as NSString).lastPathComponent
        XCTAssertEqual(failedIn, callerFile, failure.file, file: file, line: callerLine)
        for text in texts {
            XCTAssertTrue(failure.description.contains(text), "missing \"\(text)\" in: \(failure.description)",
                          file: file, line: callerLine)
        }
        return failure.description
    }

    /// N of `assertThreadPeak`'s "the block added N threads". Threads are counted process-wide,
    /// so one the runtime starts meanwhile counts too (seen: "the block added 17 threads: 16 ×
    /// HarnessUserPack, 1 × -qos.overcommit" for 16 of the test's).
    func threadsAdded(in failure: String) -> Int? {
        let match = try? Regex(#"the block added (\d+) threads"#).firstMatch(in: failure)
        return match.flatMap { $0.output[1].substring }.flatMap { Int($0) }
    }

    /// A child test binary's XCTest log, in Linux's form on every platform: Linux's XCTest
    /// (swift-corelibs-xctest) writes it to stdout and names a test `Class.test`; Apple's writes
    /// it to stderr and names a test `-[Module.Class test]` (swift-corelibs-xctest pull request
    /// 175; swiftlang/vscode-swift's `XCTestOutputParser.ts` reads both). Both streams, with
    /// Apple's names rewritten, so that a check of `Class.test : failed - …` reads a Mac's log.
    func xctestLog(_ run: ChildRun) -> String {
        Self.linuxTestNames(in: run.stdout + run.stderr)
    }

    /// Apple's `-[Module.Class test]` as Linux's `Class.test`, also where Objective-C names an
    /// `async` or `throws` test by its selector (`testWithCompletionHandler:`,
    /// `testAndReturnError:`), as `lab watch`'s `TestList.swiftName(of:)` reads it.
    static func linuxTestNames(in log: String) -> String {
        log.replacing(#/-\[(?:\w+\.)*(\w+) (\w+?)(?:WithCompletionHandler:|AndReturnError:)?\]/#) {
            "\($0.output.1).\($0.output.2)"
        }
    }

    /// Runs the test `method` of this class alone in a copy of this test binary, with
    /// `environment` (which tells the copy to run the test's probe instead of checking it).
    func runAloneInAChild(_ method: String, environment: [String: String]) throws -> ChildRun {
        let name = String(method.prefix { $0 != "(" })
        let command = TestBinaryRelaunch.command(testClass: String(reflecting: type(of: self)), method: name)
        return try ChildProcess.run(ChildSpec(executable: command.executable, arguments: command.arguments,
                                              environment: environment, budget: 30))
    }

    /// The captured failures, shared with whichever thread records one.
    private final class Capture: Sendable {
        private let state = Mutex<(on: Bool, failures: [Captured])>((false, []))
        func begin() { state.withLock { $0 = (true, []) } }
        func end() -> [Captured] { state.withLock { state in defer { state = (false, []) }; return state.failures } }
        func take(_ failure: Captured) -> Bool {
            state.withLock { state in
                guard state.on else { return false }
                state.failures.append(failure)
                return true
            }
        }
    }
}
