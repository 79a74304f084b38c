import Foundation

/// A stall of the whole machine, made on purpose: a shell stops this process (`kill -STOP`)
/// `after` seconds, lets it go on (`kill -CONT`) `length` seconds later, and exits. While a
/// process is stopped none of its threads runs, as on a loaded 2-core machine for 30 to 500 ms
/// at a time: what the harness's budgets must not call a failure of the code under test.
///
/// The stall is seen in a test through `whenOver`: code that finishes only once the stall is
/// over, but a few milliseconds of its own after it, is correct code that a stall made late.
public final class MachineStall: @unchecked Sendable {
    // `Process` is not Sendable; it is set up here and only read under `lock` after.
    private let process = Process()
    private let lock = NSLock()
    private var ended = false
    private var waiting: [@Sendable () -> Void] = []

    /// Starts the shell. Throws when it cannot be started (no `/bin/sh`).
    public init(after delay: Double, for length: Double) throws {
        let pid = ProcessInfo.processInfo.processIdentifier
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // The trap lets the process go on whatever ends the shell early (bar SIGKILL).
        process.arguments = [
            "-c", "trap 'kill -CONT \"$1\"' EXIT INT TERM HUP; sleep \(delay); kill -STOP \"$1\"; sleep \(length)",
            "stall", String(pid),
        ]
        process.terminationHandler = { [self] _ in
            let calls = lock.withLock {
                ended = true
                defer { waiting = [] }
                return waiting
            }
            for call in calls { call() }
        }
        try process.run()
    }

    /// Calls `body` once the stall is over and the shell has exited (at once if it has).
    public func whenOver(_ body: @escaping @Sendable () -> Void) {
        let now = lock.withLock {
            if !ended { waiting.append(body) }
            return ended
        }
        if now { body() }
    }

    /// Whether the stall is over, after waiting for it up to `timeout` seconds.
    @discardableResult
    public func waitUntilOver(timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while !lock.withLock({ ended }) && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        return lock.withLock { ended }
    }
}

/// An object whose last owner lets it go when a stall is over: a reply that came in just after
/// the machine gave the process back.
public final class StalledReply: Sendable {
    public init(releasedAfter stall: MachineStall) {
        stall.whenOver { [self] in withExtendedLifetime(self) {} }
    }
}
