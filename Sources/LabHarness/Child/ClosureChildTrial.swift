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
    /// unbuffered (so output before a hang or crash reaches the parent), runs `body`, lives on for
    /// the settle time, and exits. Never returns. The status is 1 when the body threw, or when the
    /// test recorded a failure during the body or the settle time (`failuresSince`, made by the
    /// test framework's module before the body ran, counts and describes them): the child's
    /// framework took such a failure, and an exit status of 0 would make the parent's trial
    /// `completed`, a pass. The failures go to the parent on the result line
    /// (`recordedFailures(of:)`), and stderr says how many. Otherwise the status is 0. It exits
    /// through `exit`, not `_exit`, so that exit handlers run: a harness failure the body could
    /// not record (`UnattendedFailure`) turns the status non-zero.
    public static func runBodyAndExit(
        failuresSince recorded: () -> (count: Int, described: [String]), _ body: () throws -> Void
    ) -> Never {
        ChildLifeline.bindToParent()
        do {
            try body()
        } catch {
            Terminal.writeError("the body threw: \(error)\n")
            fflush(nil)
            _exit(1)
        }
        // What the body set going may still trap (a continuation resumed a second time by a
        // late reply) or fail: the child lives on for the settle time the parent asked for, the
        // main run loop turning, before it reports how the body went.
        settleBeforeExit(for: requestedSettle)
        let failures = RecordedFailures(recorded())
        guard failures.count == 0 else {
            // One line, the last on stderr: the parent's evidence for the status (`exited 1: …`).
            Terminal.writeError("LabHarness: \(failures.headline) in the child; it exits 1\n")
            ChildProtocol.sendResult(RecordedFailures.prefix + failures.encoded)
            fflush(nil)
            exit(1)
        }
        ChildProtocol.sendResult("returned")
        fflush(nil)
        exit(0)
    }

    /// What a closure child trial's test recorded during the body and the settle time, as the
    /// parent quotes it (`the body recorded 1 failure: Tests.swift:12: failed - …`); nil when the
    /// child reported none (it recorded none, or did not get that far).
    public static func recordedFailures(of run: ChildRun) -> String? {
        guard let payload = run.resultPayload, payload.hasPrefix(RecordedFailures.prefix) else { return nil }
        return RecordedFailures(decoding: String(payload.dropFirst(RecordedFailures.prefix.count)))?.sentence
    }
}

/// The failures a closure child trial's test recorded, as the child sends them on its result
/// line (one line of JSON: a description may span lines).
struct RecordedFailures: Codable {
    static let prefix = "recorded-failures "
    /// Quoted in full; the rest are counted.
    static let quoted = 3

    var count: Int
    var described: [String]

    init(_ recorded: (count: Int, described: [String])) {
        count = recorded.count
        described = Array(recorded.described.suffix(recorded.count))
    }

    init?(decoding text: String) {
        guard let decoded = try? JSONDecoder().decode(Self.self, from: Data(text.utf8)) else { return nil }
        self = decoded
    }

    var encoded: String {
        (try? JSONEncoder().encode(self)).map { String(decoding: $0, as: UTF8.self) }
            ?? "{\"count\":\(count),\"described\":[]}"
    }

    /// `the body recorded 2 failures`
    var headline: String { "the body recorded \(count) failure\(count == 1 ? "" : "s")" }

    /// `the body recorded 2 failures: (1) …; (2) …`: the first `quoted` descriptions in full.
    var sentence: String {
        let head = headline
        let shown = described.prefix(Self.quoted)
        guard !shown.isEmpty else { return head + " (LabHarness has no description of them)" }
        let quotes = count == 1 ? Array(shown) : shown.enumerated().map { "(\($0.offset + 1)) \($0.element)" }
        let rest = count - shown.count
        return head + ": " + quotes.joined(separator: "; ") + (rest > 0 ? "; and \(rest) more" : "")
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
