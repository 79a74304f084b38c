import Synchronization
import LabHarness
import XCTest

/// Follows XCTest's runs through `XCTestObservationCenter`: which test case is running, and
/// how many failures observers have been told of (to learn whether `XCTFail` reached a test).
final class XCTestTracker: NSObject, XCTestObservation, @unchecked Sendable {
    // XCTestObservation requires an NSObject subclass; its state lives in a Mutex.
    enum State {
        /// No test has started since the observer was installed: the caller may be inside the
        /// test that was running when it was.
        case unknown
        case running(TestCaseReference)
        case between
    }

    /// A running test case, handed between threads: XCTest keeps it alive while it runs, and
    /// the harness only calls `recordFailure` on it, which XCTest allows from any thread.
    final class TestCaseReference: @unchecked Sendable {
        weak var testCase: XCTestCase?
        init(_ testCase: XCTestCase) { self.testCase = testCase }
    }

    private struct Shared {
        var state: State = .unknown
        var seenATest = false
        var failures = 0
        /// The latest failures' descriptions (`file:line: description`), with their numbers.
        var described: [(number: Int, text: String)] = []
        /// Tests that ended, as `Module.Class/method`.
        var ended: Set<String> = []
    }

    private static let shared = Mutex<Shared>(Shared())
    private static let installed = Atomic<Bool>(false)

    static func installIfNeeded() {
        guard !installed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        SuiteContinuation.register("xctest") { continuationPlan() }
        let adding = AddOnce(XCTestTracker())
        if Thread.isMainThread { return adding.add() }
        // Off the main thread (the first assertion of an async test, whose body runs on the
        // concurrency pool): XCTest's observer list belongs to the main thread, which turns its
        // run loop while it awaits an async test, so ask it there. The observer must be in place
        // before this assertion can fail (see `FrameworkRecording`): when the main thread does
        // not answer within a quarter second it is blocked (a synchronous test waiting for this
        // thread), touches no observer, and the observer is added from here.
        let added = DispatchSemaphore(value: 0)
        DispatchQueue.main.async {
            adding.add(); added.signal()
        }
        if added.wait(timeout: .now() + .milliseconds(250)) == .timedOut { adding.add() }
    }

    /// Adds the observer to XCTest once, whichever of two threads gets there first.
    private final class AddOnce: Sendable {
        private let observer: XCTestTracker
        private let done = Mutex(false)
        init(_ observer: XCTestTracker) { self.observer = observer }
        func add() {
            guard
                done.withLock({ done in
                    defer { done = true }; return !done
                })
            else { return }
            XCTestObservationCenter.shared.addTestObserver(observer)
        }
    }

    static var state: State { shared.withLock { $0.state } }
    static var failuresSeen: Int { shared.withLock { $0.failures } }
    static var hasSeenATest: Bool { shared.withLock { $0.seenATest } }

    /// How many descriptions of the latest failures are kept (a run may fail thousands of times).
    static let describedLimit = 50

    /// The failures observers were told of after the first `count` of the process: how many,
    /// and the descriptions of the latest of them (`describedLimit` at most).
    static func failures(after count: Int) -> (count: Int, described: [String]) {
        shared.withLock { shared in
            (max(0, shared.failures - count), shared.described.filter { $0.number > count }.map(\.text))
        }
    }

    func testCaseWillStart(_ testCase: XCTestCase) {
        let reference = TestCaseReference(testCase)
        Self.shared.withLock {
            $0.state = .running(reference); $0.seenATest = true
        }
    }

    func testCaseDidFinish(_ testCase: XCTestCase) {
        let id = Self.identifier(of: testCase)
        Self.shared.withLock {
            $0.state = .between; $0.ended.insert(id)
        }
    }

    /// `Module.Class/method`, as the Linux test binary lists and selects tests (and Darwin's
    /// `xctest -XCTest` takes them).
    static func identifier(of testCase: XCTestCase) -> String {
        var method = testCase.name
        if method.hasPrefix("-[") && method.hasSuffix("]") {
            method = String(method.dropFirst(2).dropLast())
            method = method.split(separator: " ").last.map(String.init) ?? method
        } else if let dot = method.lastIndex(of: ".") {
            method = String(method[method.index(after: dot)...])
        }
        return "\(String(reflecting: type(of: testCase)))/\(method)"
    }

    /// After a hang (`SuiteContinuation`): the XCTest tests of this run after the hung one, in
    /// the order XCTest runs them. The run's tests come from the test binary itself
    /// (`--list-tests`, in the order it runs them), narrowed to the run's own selection (the
    /// comma-separated `Module.Class/method`, `Module.Class` or `Module` that `swift test
    /// --filter` passes as its argument); the copy is given the ones after the hung test.
    static func continuationPlan() -> SuiteContinuation.Plan? {
        let (running, ended) = shared.withLock { shared -> (XCTestCase?, Set<String>) in
            guard case .running(let reference) = shared.state else { return (nil, shared.ended) }
            return (reference.testCase, shared.ended)
        }
        // The Swift Testing run of a Linux test binary: XCTest runs no test in it.
        if let flag = CommandLine.arguments.firstIndex(of: "--testing-library"), flag + 1 < CommandLine.arguments.count,
            CommandLine.arguments[flag + 1] != "xctest"
        {
            return nil
        }
        let unknownTest = running == nil && { if case .unknown = state { return true } else { return false } }()
        guard running != nil || (unknownTest && FrameworkRecording.runsInTestBinary) else { return nil }
        let known = running.map(identifier(of:))
        guard TestBundleLocation.loadedBundle == nil else {
            return SuiteContinuation.Plan(
                framework: "XCTest", hungTest: known ?? "(the running test)", arguments: nil,
                remaining:
                    "the tests after it did not run: LabHarness lists the run's tests with the Linux test binary's `--list-tests`, and has no such listing for Darwin's xctest tool"
            )
        }
        let listing: ChildRun
        do {
            listing = try ChildProcess.run(
                ChildSpec(executable: ChildProcess.currentExecutablePath(), arguments: ["--list-tests"], budget: 30))
        } catch {
            return SuiteContinuation.Plan(
                framework: "XCTest", hungTest: known ?? "(the running test)", arguments: nil,
                remaining: "the tests after it did not run: listing them failed (\(error))")
        }
        let all = listing.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && $0.contains("/") && !$0.hasPrefix("Listing ") }
        // The observer came in during the hung test (its first assertion installed it), so it
        // never saw the test start: the stuck thread's stack names it (`Class.method`), and the
        // listing says which test that is.
        let hung = known ?? testNamed(in: SuiteContinuation.evidence ?? "", among: all)
        guard let hung else {
            return SuiteContinuation.Plan(
                framework: "XCTest", hungTest: "(the running test)", arguments: nil,
                remaining:
                    "the tests after it did not run: LabHarness learns which XCTest test runs from an observer, the hang came before it saw a test start, and the stuck thread's stack named no listed test (install HangWatchObserver in the test class's `override class func setUp()`, so it sees every test start)"
            )
        }
        guard listing.outcome == .completed, let index = all.firstIndex(of: hung) else {
            return SuiteContinuation.Plan(
                framework: "XCTest", hungTest: hung, arguments: nil,
                remaining:
                    "the tests after it did not run: the test binary's `--list-tests` did not list it (\(listing.outcome.rawValue), \(all.count) tests listed)"
            )
        }
        let selection = selectedSpecifiers()
        let after = all[(index + 1)...].filter { id in
            !ended.contains(id)
                && (selection.isEmpty
                    || selection.contains { spec in
                        id == spec || id.hasPrefix(spec + "/") || id.hasPrefix(spec + ".")
                    })
        }
        guard !after.isEmpty else {
            return SuiteContinuation.Plan(
                framework: "XCTest", hungTest: hung, arguments: nil,
                remaining: "it was the last XCTest test of the run")
        }
        return SuiteContinuation.Plan(
            framework: "XCTest", hungTest: hung, arguments: [selector(for: after, among: all)],
            remaining: "the \(after.count) XCTest test\(after.count == 1 ? "" : "s") after it")
    }

    /// `tests` (`Module.Class/method`, as listed) as the one comma-separated selector XCTest
    /// takes, naming a class once (`Module.Class`) where all of its listed tests are among them.
    /// One test at a time, a suite's rest could outgrow the longest single argument Linux passes
    /// (128 KiB, about 2,000 test names), and then no test after a hang would run.
    static func selector(for tests: [String], among listed: [String]) -> String {
        func owner(_ id: String) -> Substring { id[..<(id.firstIndex(of: "/") ?? id.endIndex)] }
        var listedPerClass: [Substring: Int] = [:], chosenPerClass: [Substring: Int] = [:]
        for id in listed { listedPerClass[owner(id), default: 0] += 1 }
        for id in tests { chosenPerClass[owner(id), default: 0] += 1 }
        var parts: [String] = [], named: Set<Substring> = []
        for id in tests {
            let type = owner(id)
            guard chosenPerClass[type] == listedPerClass[type] else {
                parts.append(id)
                continue
            }
            if named.insert(type).inserted { parts.append(String(type)) }
        }
        return parts.joined(separator: ",")
    }

    /// The listed test (`Module.Class/method`) whose `Class.method` a frame of `stack` names,
    /// when exactly one does.
    static func testNamed(in stack: String, among listed: [String]) -> String? {
        let named = listed.filter { id in
            guard let slash = id.firstIndex(of: "/") else { return false }
            let type = id[..<slash].split(separator: ".").last.map(String.init) ?? ""
            let method = String(id[id.index(after: slash)...])
            let frame = "\(type).\(method)"
            // `Class.method (`, `Class.method ←` or at the end: not a longer name that starts so.
            return [frame + " (", frame + " ←", frame + "\n"].contains { stack.contains($0) } || stack.hasSuffix(frame)
        }
        return named.count == 1 ? named[0] : nil
    }

    /// The run's selection: the Linux test binary's first argument, when it is not an option.
    private static func selectedSpecifiers() -> [String] {
        guard CommandLine.arguments.count > 1 else { return [] }
        let argument = CommandLine.arguments[1]
        guard !argument.hasPrefix("-") else { return [] }
        return argument.split(separator: ",").map(String.init).filter { !$0.isEmpty }
    }

    func testCase(
        _ testCase: XCTestCase, didFailWithDescription description: String, inFile filePath: String?,
        atLine lineNumber: Int
    ) {
        let place = filePath.map { "\(($0 as NSString).lastPathComponent):\(lineNumber): " } ?? ""
        Self.shared.withLock { shared in
            shared.failures += 1
            shared.described.append((shared.failures, place + description))
            if shared.described.count > Self.describedLimit { shared.described.removeFirst() }
        }
    }
}
