import Foundation
import Synchronization

/// A time limit on one whole test, kept by a thread of its own (so it fires when every other
/// thread is blocked, the main thread and the concurrency pool included): the engine of
/// Swift Testing's `.hangWatch(after:)` and XCTest's `HangWatchObserver`.
///
/// When the test runs past `limit`, the watch takes every thread's stack, hands the failure
/// (test name, limit, grouped stacks) to `record`, prints it on stderr, and gives the test
/// `grace` to end (an async test that checks for cancellation may). A test still running
/// then cannot be stopped: the process ends with exit status 1. From the limit to the end of
/// the process: the stacks (under a second: `StackCapture`'s budgets) plus `grace`.
///
/// Time in which the process did not run is not the test's: the watch looks at the clock every
/// 100 ms, and a look that came late (a stall of the machine, a debugger's pause, a laptop's
/// sleep, where the clock counts it) moves the limit on by that much (`StallSkippingWait`, at
/// most `maxSkip` in all), and the failure says so.
public final class HangWatch: Sendable {
    /// Seconds a test gets after the failure is recorded before the process is ended.
    public static let grace: Seconds = 0.5
    /// Seconds the frames' names may take (the author's first, the system's after): a little
    /// more than a child's snapshot gets, so a loaded machine still names the stuck frame, and
    /// little enough that stacks, names and grace stay near two seconds past the limit.
    static let namingBudget: Seconds = 1.2

    private enum Phase: UInt8 { case armed = 0, ended = 1, fired = 2 }

    /// When each running watch fires (monotonic), by watch; whether it watches one task's test
    /// only (`scoped`); and when its thread last looked at the clock.
    private static let deadlines = Mutex<[ObjectIdentifier: (fires: Seconds, scoped: Bool, looked: Seconds)]>([:])

    /// The watches of the test this task runs (a suite's, the test's own, one nested in it),
    /// bound by the trait around the test's body (`HangWatchTrait`); child tasks inherit them,
    /// other threads do not see them.
    @TaskLocal public static var watching: [HangWatch] = []

    /// When the hang watch of the test that calls this fires, if one runs: a wait that would
    /// outlast it ends before (`HarnessAssertions.secondLook`), so that its test fails for what
    /// it found rather than as a hang. In a task, that is the soonest of the watches bound to it
    /// (`watching`) and of those not scoped to one task (XCTest's observer, one test at a time):
    /// under Swift Testing, tests that run side by side each have their own, and a test's wait
    /// does not end early for another test's watch. Outside any task (a thread or a queue of
    /// the code under test) the test is unknown: the soonest watch of all.
    static var deadlineOfThisTest: Seconds? {
        let mine = Set(watching.map(ObjectIdentifier.init))
        let inTask = withUnsafeCurrentTask { $0 != nil }
        let now = MonotonicClock.now()
        return deadlines.withLock { list in
            list.filter { !inTask || !$0.value.scoped || mine.contains($0.key) }
                .map { entry in
                    // A watch whose thread has not looked since a stall will move on by it.
                    let stale = now - entry.value.looked - StallSkippingWait.slice
                    return entry.value.fires + (stale > StallSkippingWait.stallFloor ? stale : 0)
                }
                .min()
        }
    }

    private let phase = Atomic<UInt8>(Phase.armed.rawValue)
    /// Whether the watch's thread runs.
    private let running = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)
    public let limit: Seconds
    let testName: String

    /// Starts watching the test `testName`, which is starting now. `record` is called once,
    /// from the watch's thread, if the test overruns (after the stacks are printed on stderr).
    /// `scoped`: the watch watches one task's test, and is bound to it (`watching`); its limit
    /// then cuts short only that test's waits.
    public init(
        limit: Seconds, testName: String, scoped: Bool = false,
        record: @escaping @Sendable (_ message: String) -> Void
    ) {
        self.limit = limit
        self.testName = testName
        let start = MonotonicClock.now(), deadline = start + limit
        Self.deadlines.withLock { $0[ObjectIdentifier(self)] = (deadline, scoped, start) }
        let created = NamedThread.startInstrumentReporting("lab.hangwatch", stackSize: 512 * 1024) { [self] in
            running.store(true, ordering: .releasing)
            watch(from: start, deadline: deadline, record: record)
        }
        // A refusal at this instant may have been another thread's: the watch's own thread
        // shows itself within a moment if it runs.
        if !created && !MainQueueFriendlyWait.until(within: 0.05, { running.load(ordering: .acquiring) }) {
            // A watch that never fires must not cut a test's waits short.
            Self.deadlines.withLock { $0[ObjectIdentifier(self)] = nil }
            ProcessEnd.say(
                "LabHarness: note: the hang watch of \(testName) could not start its thread (pthread_create refused: "
                    + "this process is at a thread limit); the test runs without one\n")
        }
    }

    /// The test ended. True when it did so before the watch fired.
    @discardableResult
    public func testEnded() -> Bool {
        let exchanged = phase.compareExchange(
            expected: Phase.armed.rawValue, desired: Phase.ended.rawValue,
            ordering: .acquiringAndReleasing
        ).exchanged
        Self.deadlines.withLock { $0[ObjectIdentifier(self)] = nil }
        wake.signal()
        return exchanged
    }

    /// Whether the watch fired (the test ran past its limit).
    public var fired: Bool { phase.load(ordering: .acquiring) == Phase.fired.rawValue }

    /// The failure's text: what overran, and where every thread was.
    /// `skipped`: the time the process did not run, which the watch added to the limit.
    public static func message(
        testName: String, limit: Seconds, skipped: Seconds = 0, stacks: StackSnapshot
    ) -> String {
        let stalls = skipped > 0
            ? " (and \(Format.seconds(skipped)) more, for stalls in which the watch's thread did not run)" : ""
        return "\(testName) ran past its hang watch of \(Format.seconds(limit))\(stalls); where every thread was:"
            + HangStacks.block(stacks)
    }

    /// The most a watch moves its limit on for stalls: the limit again, and at least
    /// `StallAllowance.most`; past that a test that starves the watch's thread is a hang.
    var maxSkip: Seconds { max(limit, StallAllowance.most) }

    /// Sleeps until the deadline, not counting time the process did not run
    /// (`StallSkippingWait`). Returns the seconds so skipped, `nil` when the test ended first.
    private func waitOut(from start: Seconds, deadline: Seconds) -> Seconds? {
        StallSkippingWait.wait(on: wake, from: start, until: deadline, maxSkip: maxSkip) { deadline, now in
            Self.deadlines.withLock { list in
                list[ObjectIdentifier(self)]?.fires = deadline
                list[ObjectIdentifier(self)]?.looked = now
            }
        }
    }

    /// `start`: when the watch was made; a stall before its thread first ran is skipped too.
    private func watch(from start: Seconds, deadline: Seconds, record: @Sendable (String) -> Void) {
        guard let skipped = waitOut(from: start, deadline: deadline) else { return }
        guard
            phase.compareExchange(
                expected: Phase.armed.rawValue, desired: Phase.fired.rawValue,
                ordering: .acquiringAndReleasing
            ).exchanged
        else { return }
        Self.deadlines.withLock { $0[ObjectIdentifier(self)] = nil }
        let text = Self.message(
            testName: testName, limit: limit, skipped: skipped,
            stacks: HangStacks.ofThisProcess(namingBudget: Self.namingBudget))
        ProcessEnd.say("error: \(text)\n")
        record(text)
        if wake.wait(timeout: WaitTimeLimit.fromNow(Self.grace)) == .success { return }
        SuiteContinuation.endAfterHang(
            "\(testName) is still running \(Format.seconds(Self.grace)) after its hang watch fired, and a blocked test cannot be stopped"
        )
    }
}
