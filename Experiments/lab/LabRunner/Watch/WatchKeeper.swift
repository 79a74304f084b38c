import CLabSupport
import Foundation
import LabHarness

/// `lab watch-keeper -- COMMAND [ARGS...]`, which `lab watch` starts between itself and the
/// command (never a user). It makes itself the reaper of orphans below it, so the command's
/// whole tree stays below it whatever process groups its processes make (`swift test` puts the
/// test binary in one of its own); it starts the command; and it ends that tree
/// - when the command has ended (stragglers: a test binary left by a killed `swift test`), and
/// - when `lab watch` has gone, however it went (`kill -9` included): it checks its parent every
///   20 ms, so a killed `lab watch` leaves nothing running for longer than that and a kill.
/// It exits with the command's status (128 + the signal when a signal ended it).
public enum WatchKeeper {
    /// The environment variable that tells the keeper which `lab watch` it serves.
    public static let parentVariable = "LAB_WATCH_PARENT_PID"

    /// How often the keeper looks for its parent and reaps.
    static let tick: Seconds = 0.02

    public static func main(_ arguments: [String]) -> Int32 {
        let environment = ProcessInfo.processInfo.environment
        guard let text = environment[parentVariable], let parent = Int32(text), parent == getppid() else {
            Terminal.writeError(
                "lab watch-keeper: is internal: only `lab watch` starts it (use: lab watch -- COMMAND)\n")
            return 64
        }
        guard arguments.first == "--", arguments.count >= 2 else {
            Terminal.writeError("lab watch-keeper: needs '-- COMMAND'\n")
            return 64
        }
        // Its life is `lab watch`'s: a SIGINT, SIGTERM or SIGHUP sent to it (`pkill -f "lab
        // watch"` names both) would end it and leave the tree it holds running, adopted by init.
        // `lab watch` ends the tree on those, and this process ends once `lab watch` has gone.
        for interrupt in [SIGINT, SIGTERM, SIGHUP] { signal(interrupt, SIG_IGN) }
        _ = ProcessTree.becomeSubreaper()
        var childEnvironment = environment
        childEnvironment[parentVariable] = nil
        let command = Array(arguments.dropFirst())
        let pid: Int32
        do { pid = try WatchSpawn.spawn(command, environment: childEnvironment, stdout: 1, stderr: 2) } catch {
            Terminal.writeError("lab watch: \(error)\n")
            return 127
        }
        var status: Int32?
        while true {
            // Reap whatever ended below: the command, and orphans handed over to this process.
            while true {
                var raw: Int32 = 0
                let reaped = waitpid(-1, &raw, WNOHANG)
                if reaped <= 0 { break }
                if reaped == pid { status = raw }
            }
            if getppid() != parent {
                // `lab watch` is gone: nobody reads the output any more; end it all.
                ProcessTree.end(below: getpid())
                return 137
            }
            if let status {
                ProcessTree.end(below: getpid())
                reapAll()
                let exited = (status & 0x7f) == 0
                return exited ? (status >> 8) & 0xff : 128 + (status & 0x7f)
            }
            MonotonicClock.sleep(for: tick)
        }
    }

    /// Reaps every child left (killed ones included), for at most a second.
    private static func reapAll() {
        let deadline = MonotonicClock.now() + 1
        while MonotonicClock.now() < deadline {
            var raw: Int32 = 0
            let reaped = waitpid(-1, &raw, WNOHANG)
            if reaped < 0 { return }  // no child left
            if reaped == 0 { MonotonicClock.sleep(for: 0.005) }
        }
    }
}

/// Starting a program by name (looked up in `PATH`) with the shim's `clab_spawn`: its own process
/// group, stdin from /dev/null, the given descriptors as stdout and stderr.
public enum WatchSpawn {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs `spec`, again while a signal the harness did not send ends it, `tries` times in all:
    /// the tool itself crashed, which judges nothing (Swift 6.3.1's SwiftPM sometimes dies by
    /// SIGSEGV in libdispatch while it plans a swiftbuild build, swiftlang/swift issue 87033).
    /// `crashed` hears of each such run before the next.
    static func runAgainIfCrashed(
        _ spec: ChildSpec, tries: Int = 3, crashed: (ChildRun) -> Void = { _ in }
    ) throws -> ChildRun {
        var run = try ChildProcess.run(spec)
        for _ in 1..<tries where run.signal != nil && !run.killedByHarness {
            crashed(run)
            run = try ChildProcess.run(spec)
        }
        return run
    }

    /// The program's path: as given when it holds a `/`, else the first executable of that name
    /// in `PATH`.
    public static func resolve(
        _ program: String, path: String? = ProcessInfo.processInfo.environment["PATH"]
    ) -> String? {
        if program.contains("/") { return FileManager.default.isExecutableFile(atPath: program) ? program : nil }
        for directory in (path ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = String(directory) + "/" + program
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    public static func spawn(
        _ command: [String], environment: [String: String], stdout: Int32, stderr: Int32
    ) throws -> Int32 {
        guard let program = command.first, let path = resolve(program, path: environment["PATH"]) else {
            throw Failure(description: "command not found: \(UsageError.echo(command.first ?? ""))")
        }
        let argv = command.map { strdup($0) } + [nil]
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: Int32 = 0
        let code = clab_spawn(&pid, path, argv, envp, stdout, stderr)
        guard code == 0 else { throw Failure(description: "cannot launch \(path): \(String(cString: strerror(code)))") }
        return pid
    }
}
