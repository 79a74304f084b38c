import CLabSupport
import Foundation
import Synchronization

/// One output stream of this process, written whole or not at all, never trapping.
///
/// Every write of the lab to stdout, stderr goes through one of these (files go through
/// `AtomicFile`): `FileHandle.write` traps on any error (a closed stdout, a full disk, a reader
/// that went away), which turned a shell's `>&-` or `> /dev/full` into a backtrace and exit 132.
/// Here a failure is kept, the first one only, and later writes to the same stream are skipped;
/// the program's exit status then says what happened (`Terminal.exitStatus(earned:program:)`).
public final class Output: Sendable {
    public static let standardOutput = Output(fd: 1)
    public static let standardError = Output(fd: 2)

    private let fd: Int32
    private let state = Mutex<(failure: Int32?, product: Bool)>((nil, false))

    init(fd: Int32) { self.fd = fd }

    /// Marks the stream failed with `EBADF` without writing: it was closed when the program
    /// started (and now holds `/dev/null`, see `clab_hold_closed_stream`).
    func markClosed() {
        state.withLock { if $0.failure == nil { $0.failure = EBADF } }
    }

    /// The `errno` of the first write that failed, if one did.
    public var failure: Int32? { state.withLock { $0.failure } }

    /// Whether what this stream carries is the product (`--json` on stdout).
    var carriesProduct: Bool {
        get { state.withLock { $0.product } }
        set { state.withLock { $0.product = newValue } }
    }

    /// Writes `text` whole; false when this write or an earlier one failed.
    @discardableResult
    public func write(_ text: String) -> Bool {
        if text.isEmpty { return failure == nil }
        return state.withLock { s -> Bool in
            guard s.failure == nil else { return false }
            var bytes = Array(text.utf8)
            let result = bytes.withUnsafeMutableBytes { clab_write_whole(fd, $0.baseAddress, UInt($0.count)) }
            if result != 0 { s.failure = result }
            return result == 0
        }
    }

    /// Writes `bytes` whole, as they are (`lab watch` passing a command's output through);
    /// false when this write or an earlier one failed.
    @discardableResult
    public func write(bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count > 0 else { return failure == nil }
        return state.withLock { s -> Bool in
            guard s.failure == nil else { return false }
            let result = clab_write_whole(fd, bytes.baseAddress, UInt(bytes.count))
            if result != 0 { s.failure = result }
            return result == 0
        }
    }

    /// `No space left on device (ENOSPC)` and the like, for messages.
    public static func describe(_ code: Int32) -> String {
        let names: [Int32: String] = [
            EPIPE: "EPIPE", EBADF: "EBADF", ENOSPC: "ENOSPC", EIO: "EIO",
            EDQUOT: "EDQUOT", EFBIG: "EFBIG", EAGAIN: "EAGAIN",
        ]
        let text = String(cString: strerror(code))
        return names[code].map { "\(text) (\($0))" } ?? text
    }
}
