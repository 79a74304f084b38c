import Foundation
import CLabSupport

/// Reads what this process writes to its standard error (fd 2) for a while, with the time each
/// piece arrived, while all of it still reaches the real stderr as it is written.
///
/// Some evidence exists only as a line the runtime prints on stderr (the Swift runtime's
/// warning for a leaked checked continuation): nothing in the program can observe it
/// otherwise. The Swift runtime writes it straight to fd 2 from inside the concurrency library
/// (`swift_continuation_logFailedCheck` calls `swift_reportError`, a `write(2)`; the call is
/// direct, so it cannot be interposed), so the only way to read it is to be on fd 2's other end.
///
/// fd 2 points, while at least one capture is open, at a pipe read by a forwarding process
/// (`clab_stderr_copy_start`) that passes every piece on to the real stderr before handing a
/// copy to this process: nothing is held back, and a crash or kill in the window loses nothing
/// (the forwarder outlives this process until the pipe's last writer is gone, so a crash
/// report written meanwhile still arrives). Captures may overlap (parallel tests): the first
/// opens the copy, the last puts fd 2 back, and each sees what arrived while it was open.
public final class StderrCapture: Sendable {
    private let session: StderrCopySession
    private let firstChunk: Int
    private let ended = Shared(false)

    /// Starts capturing; throws (with fd 2 untouched) when standard error cannot be copied.
    public init() throws {
        (session, firstChunk) = try StderrCopySession.join()
    }

    /// The pieces that arrived since this capture opened, with the monotonic instant of each.
    public var chunks: [(at: Seconds, text: String)] { session.chunks(from: firstChunk) }

    /// The lines that arrived since this capture opened and contain `marker`.
    public func lines(containing marker: String) -> [String] {
        chunks.map(\.text).joined().split(separator: "\n").filter { $0.contains(marker) }.map(String.init)
    }

    /// Waits up to `timeout` seconds for a line containing `marker`; returns it with the time
    /// its piece arrived.
    public func waitForLine(containing marker: String, within timeout: Seconds) -> (at: Seconds, line: String)? {
        let deadline = MonotonicClock.now() + timeout
        while true {
            for chunk in chunks {
                if let line = chunk.text.split(separator: "\n").first(where: { $0.contains(marker) }) {
                    return (chunk.at, String(line))
                }
            }
            if MonotonicClock.now() >= deadline { return nil }
            MonotonicClock.sleep(for: 0.005)
        }
    }

    /// Ends this capture; the last one open puts fd 2 back and waits (up to a second) for the
    /// forwarder to pass on what it still holds. Calling it again does nothing.
    public func end() {
        guard
            ended.update({ done in
                defer { done = true }; return !done
            })
        else { return }
        session.leave()
    }

    deinit { end() }
}

/// One stretch during which fd 2 is copied: opened by the first capture, closed by the last.
final class StderrCopySession: Sendable {
    private struct State {
        var holders = 0
        var savedStderr: Int32 = -1
        var current: StderrCopySession?
    }
    private static let state = Shared(State())

    private let received = Shared<[(at: Seconds, text: String)]>([])
    private let readerDone = DispatchSemaphore(value: 0)

    /// Joins the open session, or opens one; returns it and the index of its next piece.
    static func join() throws -> (StderrCopySession, Int) {
        let joined = state.update { state -> Result<(StderrCopySession, Int), POSIXError> in
            if let session = state.current {
                state.holders += 1
                return .success((session, session.received.get().count))
            }
            var saved: Int32 = -1, copyRead: Int32 = -1
            let code = clab_stderr_copy_start(&saved, &copyRead)
            guard code == 0 else { return .failure(POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)) }
            let session = StderrCopySession()
            session.startReading(copyRead)
            state = State(holders: 1, savedStderr: saved, current: session)
            return .success((session, 0))
        }
        return try joined.get()
    }

    private func startReading(_ fd: Int32) {
        NamedThread.startInstrument("lab.stderr") { [self] in
            var buffer = [UInt8](repeating: 0, count: 8192)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                let text = String(decoding: buffer.prefix(n), as: UTF8.self)
                received.update { $0.append((MonotonicClock.now(), text)) }
            }
            close(fd)
            readerDone.signal()
        }
    }

    func chunks(from index: Int) -> [(at: Seconds, text: String)] {
        received.update { Array($0.dropFirst(index)) }
    }

    /// Before this process ends on purpose (a hang it cannot outlive): puts fd 2 back at once,
    /// whoever still holds a capture, so the last lines (the summary of a suite that went on in
    /// a copy) go straight to the real stderr. Through the forwarder they could be lost: it is
    /// in this process's group, which whoever ran this process kills once it has ended.
    static func endForProcessExit() {
        let ended = Self.state.update { state -> StderrCopySession? in
            guard let session = state.current else { return nil }
            _ = clab_stderr_copy_stop(state.savedStderr)
            state = State()
            return session
        }
        // What the forwarder still holds reaches the real stderr before the lines written now.
        if let ended { _ = ended.readerDone.wait(timeout: .now() + .milliseconds(500)) }
    }

    /// One holder leaves; the last puts fd 2 back, then waits for the forwarder to finish.
    func leave() {
        let last = Self.state.update { state -> Bool in
            guard state.current === self else { return false }
            state.holders -= 1
            guard state.holders == 0 else { return false }
            _ = clab_stderr_copy_stop(state.savedStderr)
            state = State()
            return true
        }
        // The forwarder ends once every writer is gone; a child started in the window may
        // still hold fd 2, so the wait has a budget and the reader goes on alone after it.
        if last { _ = readerDone.wait(timeout: .now() + .seconds(1)) }
    }
}
