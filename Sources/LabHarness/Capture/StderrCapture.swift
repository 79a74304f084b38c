import Foundation
import CLabSupport

/// Captures what this process writes to its standard error (fd 2) for a while, with the time
/// each piece arrived, then puts fd 2 back and passes the captured text on to it.
///
/// Some evidence exists only as a line the runtime prints on stderr (the Swift runtime's
/// warning for a leaked checked continuation): nothing in the program can observe it
/// otherwise, so a trial points fd 2 at a pipe around its scenario and reads the line back.
/// Only for child trials: it redirects the whole process's stderr.
public final class StderrCapture: Sendable {
    private let readEnd: Int32
    private let savedStderr: Int32
    /// What arrived, with the monotonic instant each piece was read.
    private let chunks = Shared<[(at: Seconds, text: String)]>([])
    private let readerDone = DispatchSemaphore(value: 0)

    /// Starts capturing: fd 2 now writes into a pipe that a reader thread drains.
    public init() throws {
        var fds: [Int32] = [0, 0]
        guard clab_pipe_cloexec(&fds) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let saved = dup(2)
        fflush(nil)   // every stdio stream: whatever was buffered goes where it was meant to
        guard saved >= 0, dup2(fds[1], 2) >= 0 else {
            close(fds[0]); close(fds[1]); if saved >= 0 { close(saved) }
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        close(fds[1])   // fd 2 is now the pipe's only write end: restoring fd 2 ends the stream
        readEnd = fds[0]
        savedStderr = saved
        NamedThread.start("lab.stderr") { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                let text = String(decoding: buffer.prefix(n), as: UTF8.self)
                chunks.update { $0.append((MonotonicClock.now(), text)) }
            }
            readerDone.signal()
        }
    }

    /// Waits up to `timeout` seconds for a line containing `marker`; returns it with the time
    /// its piece arrived.
    public func waitForLine(containing marker: String, within timeout: Seconds) -> (at: Seconds, line: String)? {
        let deadline = MonotonicClock.now() + timeout
        while true {
            for chunk in chunks.get() {
                if let line = chunk.text.split(separator: "\n").first(where: { $0.contains(marker) }) { return (chunk.at, String(line)) }
            }
            if MonotonicClock.now() >= deadline { return nil }
            MonotonicClock.sleep(for: 0.005)
        }
    }

    /// Puts fd 2 back, waits (briefly) for the reader to see the end of the pipe, and writes
    /// what was captured to the real stderr, so the parent still sees it. Call it once.
    public func end() {
        fflush(nil)
        _ = dup2(savedStderr, 2)   // closes the pipe's last write end: the reader gets end-of-file
        close(savedStderr)
        _ = readerDone.wait(timeout: .now() + .seconds(1))
        close(readEnd)
        let all = chunks.get().map(\.text).joined()
        if !all.isEmpty { Terminal.writeError(all) }
    }
}
