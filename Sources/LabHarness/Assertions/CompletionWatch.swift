import Foundation
import Synchronization

/// The watchdog of one synchronous `assertCompletes`: the block runs on the caller's own thread
/// (the main thread stays the main thread, so a wait on the main queue deadlocks there as it
/// does in the app), and this watches the budget from a thread of its own.
///
/// When the budget runs out first, the watchdog takes the stuck thread's stack at once. If the
/// block then returns within `grace`, the caller records the failure, stack included, and the
/// test goes on. If it does not, the test cannot go on (nothing can unwind a blocked thread):
/// the watchdog records the failure itself, prints why it ends the process, and exits 1, so the
/// run fails within the budget plus `grace` plus the time a stack takes (under a second here,
/// at most about four on a starved machine) with the stuck frame named, instead of hanging.
final class CompletionWatch: Sendable {
    /// Seconds the block gets after its budget before the process is ended.
    static let grace: Seconds = 1.0

    private enum Phase: UInt8 { case armed = 0, finished = 1, overran = 2 }

    private let phase = Atomic<UInt8>(Phase.armed.rawValue)
    private let wake = DispatchSemaphore(value: 0)
    private let stackText = Shared<String?>(nil)
    private let timeout: Seconds
    private let call: AssertionCall
    private let stuckThread: Int?
    private let endsProcess: Bool
    private let startedFlag = Atomic<Bool>(false)
    /// Whether the watchdog thread was created (false at a thread limit: nothing watches).
    var started: Bool { startedFlag.load(ordering: .acquiring) }

    /// Starts watching: the caller runs the block right after this returns.
    init(timeout: Seconds, call: AssertionCall, endsProcess: Bool = true) {
        self.timeout = timeout
        self.call = call
        self.stuckThread = KernelThreadID.current()
        self.endsProcess = endsProcess
        let deadline = MonotonicClock.now() + timeout
        let started = NamedThread.startInstrumentReporting("lab.completes", stackSize: 512 * 1024) { [self] in
            watch(deadline: deadline)
        }
        startedFlag.store(started, ordering: .releasing)
    }

    /// Called by the caller when the block returned. `nil` when it did so before the watchdog
    /// saw the budget run out; otherwise the grouped stack of the thread as the watchdog saw it.
    func blockReturned() -> String? {
        if phase.compareExchange(
            expected: Phase.armed.rawValue, desired: Phase.finished.rawValue,
            ordering: .acquiringAndReleasing
        ).exchanged {
            wake.signal()
            return nil
        }
        wake.signal()  // the watchdog may be in its grace: the block came back, no need to end anything
        // The watchdog is taking the stack (bounded by StackCapture's budgets): wait for it.
        let limit = MonotonicClock.now() + StackCapture.answerBudget + HangStacks.patientNaming + 1
        while stackText.get() == nil && MonotonicClock.now() < limit { MonotonicClock.sleep(for: 0.002) }
        return stackText.get() ?? HangStacks.block(nil)
    }

    private func watch(deadline: Seconds) {
        let left = max(0, deadline - MonotonicClock.now())
        if wake.wait(timeout: WaitTimeLimit.fromNow(left)) == .success { return }
        guard
            phase.compareExchange(
                expected: Phase.armed.rawValue, desired: Phase.overran.rawValue,
                ordering: .acquiringAndReleasing
            ).exchanged
        else { return }
        // The grace below starts once the stack is named, so naming may take its time.
        let text = HangStacks.block(
            HangStacks.ofThisProcess(onlyThread: stuckThread, namingBudget: HangStacks.patientNaming))
        stackText.set(text)
        guard endsProcess else { return }
        // Time the process did not run (a stall of the machine) is not the block's grace.
        let graceEnds = MonotonicClock.now() + Self.grace
        guard let skipped = StallSkippingWait.wait(on: wake, until: graceEnds, maxSkip: StallAllowance.most) else {
            return
        }
        let stalls = skipped > 0 ? " (and \(Format.seconds(skipped)) more, for stalls of the machine)" : ""
        // Still stuck: the test can never return, so fail it here and end the process.
        // The last look before the process ends: every thread, as the hang watch gives them
        // (what the stuck thread waits for is often another thread's doing).
        let every = HangStacks.block(HangStacks.ofThisProcess(namingBudget: HangStacks.patientNaming))
        WatchdogRecording.$watchedThread.withValue(stuckThread) {
            call.fail(
                Self.overrunMessage(timeout) + "; it is still stuck \(Format.seconds(Self.grace)) later\(stalls), "
                    + "so LabHarness ends the process (a blocked thread cannot be stopped). Its thread:" + text
                    + "\nWhere every thread was as the process ended:" + every)
        }
        SuiteContinuation.endAfterHang(
            "the thread that called assertCompletes at \(call.site) is stuck; see the failure above",
            stuckStack: text)
    }

    /// Why a synchronous `assertCompletes` did not run its block.
    static let notStartedMessage =
        "could not start its watchdog thread (pthread_create refused: this process is at a thread limit), so "
        + "nothing could bound the block, and it was not run: the machine's limit, not a verdict on the block"

    static func overrunMessage(_ timeout: Seconds) -> String {
        "did not complete within \(Format.seconds(timeout))"
    }
}

/// Ends this process after a failure that no test can outlive (a thread that will never
/// return): one line on stderr saying why, everything flushed, exit status 1.
public enum ProcessEnd {
    public static func now(_ reason: String) -> Never {
        StderrCopySession.endForProcessExit()
        say("LabHarness: ending the process: \(reason)\n")
        exitNow()
    }

    /// Flushes every stream and exits with status 1, running no `atexit` handler (a blocked
    /// thread may hold what they would need).
    static func exitNow() -> Never {
        fflush(nil)
        _exit(1)
    }

    /// Writes `text` to file descriptor 2 as it is; a closed or failing stderr loses the text
    /// and nothing else (no trap, unlike `FileHandle.write`).
    public static func say(_ text: String) {
        fflush(nil)
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let wrote = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            if wrote <= 0 { return }
            bytes = bytes.dropFirst(wrote)
        }
    }
}

/// Which test a watchdog's failure belongs to. A watchdog records from a thread of its own, where
/// no test is current; tests side by side may wait at the same line (a parameterized test's
/// cases), so the thread it watched (`KernelThreadID`) is bound around its `AssertionCall.fail`,
/// and the framework records the failure on the test waiting on that thread.
public enum WatchdogRecording {
    @TaskLocal public static var watchedThread: Int?
}
