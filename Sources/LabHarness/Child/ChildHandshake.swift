import Foundation

/// Tells a process the lab started from one a user started by hand.
///
/// `ChildProcess` puts its own pid in every child's environment (`LAB_PARENT_PID`); a process
/// whose actual parent is that pid was started by the lab. A shell never sets the variable, and
/// an inherited stale value names some other process, so neither passes. The parent-child
/// protocol (`--child-variant`, `lab bench-child`) is refused without the handshake: by hand,
/// a trial built to deadlock hangs the terminal and one built to trap prints a trace, and
/// neither has a parent to read its result.
public enum ChildHandshake {
    /// Whether this process was started by the lab's `ChildProcess`.
    public static var startedByLab: Bool {
        guard let text = ProcessInfo.processInfo.environment[ChildLifeline.parentVariable],
            let parent = Int32(text), parent > 1
        else { return false }
        return getppid() == parent
    }

    /// Binds this process's life to its parent's (see `ChildLifeline`) when the lab started it;
    /// does nothing for a process started by hand. Call first thing in `main`.
    public static func bindIfStartedByLab() {
        if startedByLab { ChildLifeline.bindToParent() }
    }

    /// The one line that refuses `what` (such as `--child-variant`) typed by a user.
    public static func refusal(program: String, what: String) -> String {
        "\(program): \(what) is internal: only the lab's own child processes take it (run without it; see --help)\n"
    }
}
