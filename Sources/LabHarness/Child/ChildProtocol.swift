import Foundation

/// The line protocol a child trial speaks to its parent on standard output.
///
/// - `@lab:progress N` — the child's progress counter is now N. The parent uses the time of the
///   last such line to tell a stuck child (deadlock) from a slow one.
/// - `@lab:result PAYLOAD` — the trial's measured result (JSON), written once, last.
/// - `@lab:checkpoint PAYLOAD` — what the trial measured so far (JSON), written before a step
///   that may end the process (a trap on purpose). If no result follows, the parent merges the
///   last checkpoint into the record it builds from the process's end. Checkpoint lines stay
///   in the child's standard output, where the parent finds them (`lastCheckpoint(in:)`).
///
/// Every other line is ordinary output and is kept as such.
public enum ChildProtocol {
    public static let prefix = "@lab:"
    static let prefixBytes = Array(prefix.utf8)

    public enum Message: Equatable, Sendable {
        case progress(Int)
        case result(String)
        case checkpoint(String)
    }

    public static func parse(_ line: String) -> Message? {
        guard line.hasPrefix(prefix) else { return nil }
        let body = line.dropFirst(prefix.count)
        if body.hasPrefix("progress ") {
            return Int(body.dropFirst("progress ".count).trimmingCharacters(in: .whitespaces)).map(Message.progress)
        }
        if body.hasPrefix("result ") {
            return .result(String(body.dropFirst("result ".count)))
        }
        if body.hasPrefix("checkpoint ") {
            return .checkpoint(String(body.dropFirst("checkpoint ".count)))
        }
        return nil
    }

    /// The payload of the last checkpoint line in a child's standard output, if any.
    static func lastCheckpoint(in output: String) -> String? {
        output.split(separator: "\n").reversed().lazy.compactMap { line -> String? in
            if case .checkpoint(let payload)? = parse(String(line)) { return payload }
            return nil
        }.first
    }

    /// Writes a progress line straight to file descriptor 1 (no stdio buffering, so the parent
    /// sees it at once, even if the process dies right after).
    public static func sendProgress(_ value: Int) {
        writeLine("\(prefix)progress \(value)")
    }

    /// Writes a checkpoint line straight to file descriptor 1, so it is out before the process
    /// can die. `payload` must not contain a newline.
    static func sendCheckpoint(_ payload: String) {
        writeLine("\(prefix)checkpoint \(payload)")
    }

    /// Writes the result line. `payload` must not contain a newline.
    public static func sendResult(_ payload: String) {
        writeLine("\(prefix)result \(payload)")
    }

    static func writeLine(_ line: String) {
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(1, raw.baseAddress! + offset, raw.count - offset)
                if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { return }
            }
        }
    }
}

/// Binds a child process's life to its parent's.
///
/// A child trial that hangs on purpose must not outlive a parent that was killed or interrupted.
/// On Linux the kernel sends `SIGKILL` when the parent's spawning thread exits
/// (`PR_SET_PDEATHSIG`); elsewhere a watcher thread polls `getppid()`.
public enum ChildLifeline {
    /// The environment variable through which `ChildProcess` tells a child its parent's pid.
    public static let parentVariable = "LAB_PARENT_PID"

    /// Call first thing in a child. Exits at once if the parent is already gone. Also makes
    /// stdout unbuffered, so what the child printed before a hang or a crash reaches the parent.
    public static func bindToParent() {
        StandardOutput.makeUnbuffered()
        guard let text = ProcessInfo.processInfo.environment[parentVariable], let parent = Int32(text) else { return }
        HostPlatform.dieWithParent(parent)
        if getppid() != parent { _exit(70) }
    }
}
