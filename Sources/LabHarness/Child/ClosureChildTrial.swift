import Foundation

/// The child side of a closure child trial: a test process relaunched to run one assertion's
/// body alone. The parent names the call site in an environment variable; the copy of the test
/// that reaches that site runs the body and exits, and every other site in the copy does
/// nothing.
public enum ClosureChildTrial {
    /// Names the call site (`fileID:line:column`) whose body the child runs.
    public static let siteVariable = "LAB_CLOSURE_TRIAL_SITE"

    /// The site this process was launched to run, when it is a child trial.
    public static var requestedSite: String? {
        ProcessInfo.processInfo.environment[siteVariable]
    }

    /// Names the seconds the child waits after the body returned, before it exits.
    public static let settleVariable = "LAB_CLOSURE_TRIAL_SETTLE"

    /// The settle time of `assertInChildProcess` unless told: half a second, ten times the
    /// 50 ms after which a late reply resumed a continuation a second time in the case that
    /// showed the need.
    public static let defaultSettle: Seconds = 0.5

    /// The settle time the parent asked for (0 when it said none).
    static var requestedSettle: Seconds {
        Double(ProcessInfo.processInfo.environment[settleVariable] ?? "") ?? 0
    }

    /// The identifier of a call site, as the parent and the child both spell it.
    public static func siteKey(_ site: FailureSite) -> String {
        "\(site.fileID):\(site.line):\(site.column)"
    }

    /// In the child, at the requested site: binds the child to its parent, makes stdout
    /// unbuffered (so output before a hang or crash reaches the parent), runs `body`, and exits
    /// 0 when it returns, 1 when it throws. Never returns. It exits through `exit`, not `_exit`,
    /// so that exit handlers run: a harness failure the body could not record
    /// (`UnattendedFailure`) turns the status non-zero.
    public static func runBodyAndExit(_ body: () throws -> Void) -> Never {
        ChildLifeline.bindToParent()
        do {
            try body()
        } catch {
            Terminal.writeError("the body threw: \(error)\n")
            fflush(nil)
            _exit(1)
        }
        // What the body set going may still trap (a continuation resumed a second time by a
        // late reply): the child lives on for the settle time the parent asked for, the main
        // run loop turning, before it reports that the body returned.
        settleBeforeExit(for: requestedSettle)
        ChildProtocol.sendResult("returned")
        fflush(nil)
        exit(0)
    }
}

/// Waits `duration` before a child process (an exit test's body, a closure child trial) ends,
/// turning the main run loop meanwhile on the main thread, so what the body set going has time
/// to misbehave where the parent sees it: a second call, a trap after the body returned. An exit
/// test ends as soon as its body returns; call this last in the body:
///
/// ```swift
/// await #expect(processExitsWith: .success) {
///     _ = await Loader().load()
///     await settleBeforeExit(for: 0.5)     // a double resume 50 ms later traps here, not after exit
/// }
/// ```
public func settleBeforeExit(for duration: some WaitTime) {
    MainQueueFriendlyWait.pass(max(0, duration.labSeconds))
}

/// `settleBeforeExit(for:)` in async code: suspends instead of blocking the thread, for the whole
/// time even in a cancelled task, and turns the main run loop as the blocking form does.
public func settleBeforeExit(for duration: some WaitTime) async {
    await MainQueueFriendlyWait.pass(max(0, duration.labSeconds))
}
