import Foundation
@testable import LabHarnessRecording
import XCTest

/// The tests after a hang run in a copy of the test binary, selected by one argument. Naming
/// every test in it, a large suite's rest outgrew the 128 KiB Linux allows one argument (about
/// 2,000 names), and the copy could not start: none of those results came. A class whose listed
/// tests all remain is named once.
final class ContinuationSelectorTests: XCTestCase {
    func testAClassWhoseTestsAllRemainIsNamedOnce() {
        let listed = ["M.A/test1", "M.A/test2", "M.A/test3", "M.B/test1", "M.B/test2", "N.C/test1"]
        let after = ["M.A/test3", "M.B/test1", "M.B/test2", "N.C/test1"]
        XCTAssertEqual(XCTestTracker.selector(for: after, among: listed), "M.A/test3,M.B,N.C")
    }

    /// The Swift Testing copy skips the tests seen end by an anchored pattern: a bare one matches
    /// anywhere in an id, and `CoreTests.Suite/f()` skipped `AppCoreTests.Suite/f()` too.
    func testASkippedSwiftTestingTestIsThatTestAlone() throws {
        let pattern = try NSRegularExpression(pattern: SwiftTestingRun.skipPattern(for: "CoreTests.Suite/f()"))
        func skips(_ id: String) -> Bool {
            pattern.firstMatch(in: id, range: NSRange(id.startIndex..., in: id)) != nil
        }
        XCTAssertTrue(skips("CoreTests.Suite/f()/S.swift:3:4"))
        XCTAssertTrue(skips("CoreTests.Suite/f()"))
        XCTAssertFalse(skips("AppCoreTests.Suite/f()/S.swift:3:4"))
        XCTAssertFalse(skips("CoreTests.Suite/f()g()/S.swift:3:4"))
    }

    /// Two tests side by side stuck at one line (a parameterized test's cases): the watchdog
    /// of one records on the test waiting on the thread it watched, not on the last to wait.
    func testAWatchdogsFailureGoesToTheTestWaitingOnTheThreadItWatched() {
        let first = BoundRecorder(thread: 11), second = BoundRecorder(thread: 12)
        defer { [first, second].forEach { $0.close() } }
        XCTAssertTrue(SwiftTestingRun.recorder(for: 11, among: [first, second]) === first)
        XCTAssertTrue(SwiftTestingRun.recorder(for: 12, among: [first, second]) === second)
        XCTAssertNil(SwiftTestingRun.recorder(for: 13, among: [first, second]), "no test waits on that thread")
        XCTAssertTrue(SwiftTestingRun.recorder(for: nil, among: [first, second]) === second, "no thread known")
    }

    func testTheRestOfALargeSuiteFitsOneArgument() {
        let listed = (0..<400).flatMap { c in
            (0..<25).map { "Module.SomeRatherLongTestClassName\(c)/testSomethingRatherLong\($0)" }
        }
        let selector = XCTestTracker.selector(for: Array(listed.dropFirst(3)), among: listed)
        XCTAssertLessThan(selector.utf8.count, 32 << 10, "10,000 tests after a hang, in \(selector.utf8.count) bytes")
        XCTAssertGreaterThan(listed.joined(separator: ",").utf8.count, 128 << 10, "one name each would not fit")
    }
}
