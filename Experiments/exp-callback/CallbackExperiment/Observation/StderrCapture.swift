import Foundation
import LabHarness
import Synchronization

/// Captures what this process writes to its standard error (fd 2) for a while, with the time
/// each piece arrived, then puts fd 2 back and passes the captured text on to it.
///
/// The Swift runtime reports a leaked checked continuation only as a line on stderr; nothing
/// in the program can observe it otherwise. A child trial writes its own record, so to put
/// that line in the record as evidence the child points fd 2 at a pipe around the scenario.
/// Only for child trials: it redirects the whole process's stderr.
final class StderrCapture: Sendable {
    struct Chunk: Sendable {
        /// Monotonic time the chunk was read from the pipe.
        var at: Seconds
        var text: String
    }

    private let readEnd: Int32
    private let savedStderr: Int32
    private let chunks = Mutex<[Chunk]>([])
    private let readerDone = DispatchSemaphore(value: 0)
    private let ended = Atomic<Bool>(false)

    /// Starts capturing: fd 2 now writes into a pipe that a reader thread drains.
    init() throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw CaptureError("pipe failed: errno \(errno)") }
        let saved = dup(2)
        guard saved >= 0 else { close(fds[0]); close(fds[1]); throw CaptureError("dup(2) failed: errno \(errno)") }
        fflush(nil)   // every stdio stream: whatever was buffered goes where it was meant to
        guard dup2(fds[1], 2) >= 0 else {
            close(fds[0]); close(fds[1]); close(saved)
            throw CaptureError("dup2 failed: errno \(errno)")
        }
        close(fds[1])   // fd 2 is now the pipe's only write end: restoring fd 2 ends the stream
        readEnd = fds[0]
        savedStderr = saved
        NamedThread.start("cb.stderr") { [self] in drain() }
    }

    private func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            let chunk = Chunk(at: MonotonicClock.now(), text: String(decoding: buffer.prefix(n), as: UTF8.self))
            chunks.withLock { $0.append(chunk) }
        }
        readerDone.signal()
    }

    /// What arrived so far.
    var captured: [Chunk] { chunks.withLock { $0 } }

    /// The first captured line containing `marker`, with the time its chunk arrived.
    func firstLine(containing marker: String) -> (at: Seconds, line: String)? {
        for chunk in captured {
            if let line = chunk.text.split(separator: "\n").first(where: { $0.contains(marker) }) {
                return (chunk.at, String(line))
            }
        }
        return nil
    }

    /// Waits up to `timeout` seconds for a line containing `marker`.
    func waitForLine(containing marker: String, within timeout: Seconds) -> (at: Seconds, line: String)? {
        let deadline = MonotonicClock.now() + timeout
        while true {
            if let found = firstLine(containing: marker) { return found }
            if MonotonicClock.now() >= deadline { return nil }
            MonotonicClock.sleep(for: 0.005)
        }
    }

    /// Puts fd 2 back, waits (briefly) for the reader to see the end of the pipe, and writes
    /// what was captured to the real stderr, so the parent still sees it. Returns the text.
    @discardableResult
    func end() -> String {
        guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return text }
        fflush(nil)   // every stdio stream: whatever was buffered goes where it was meant to
        _ = dup2(savedStderr, 2)   // closes the pipe's last write end: the reader gets end-of-file
        close(savedStderr)
        _ = readerDone.wait(timeout: .now() + .seconds(1))
        close(readEnd)
        let all = text
        if !all.isEmpty { Terminal.writeError(all) }
        return all
    }

    var text: String { captured.map(\.text).joined() }

    struct CaptureError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
