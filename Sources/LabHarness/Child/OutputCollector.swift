import Foundation

/// Collects one output stream: keeps up to `limit` bytes, and for stdout pulls out the lab's
/// protocol lines (`@lab:progress N`, `@lab:result ...`) as they arrive.
struct OutputCollector {
    let limit: Int
    let parsesProtocol: Bool
    let onProgress: (@Sendable (Int) -> Void)?
    private var kept: [UInt8] = []
    private var pending: [UInt8] = []
    /// How much of `pending` is known to hold no newline; whether the last piece kept ended mid-line.
    private var scanned = 0, midLine = false
    private(set) var dropped = 0
    private(set) var progress: Int?
    private(set) var lastProgressAt: Seconds?

    /// Moves the last progress report later by `seconds`: the time the whole run was paused
    /// (Ctrl-Z) is nobody's stall.
    mutating func shiftProgress(by seconds: Seconds) {
        lastProgressAt = lastProgressAt.map { $0 + seconds }
    }
    private(set) var result: String?

    init(limit: Int, parsesProtocol: Bool, onProgress: (@Sendable (Int) -> Void)? = nil) {
        self.limit = limit
        self.parsesProtocol = parsesProtocol
        self.onProgress = onProgress
    }

    mutating func append(_ bytes: ArraySlice<UInt8>) {
        pending.append(contentsOf: bytes)
        // Every byte is looked at once: lines are taken from the front and the rest moved down
        // once per read, and a search starts where the last one ended. (Per line and from the
        // start, 2 MB without a newline took 3 s to read in a debug build.)
        var start = pending.startIndex, from = max(start, scanned)
        while let newline = pending[from...].firstIndex(of: UInt8(ascii: "\n")) {
            take(Array(pending[start..<newline]), terminated: true)
            start = newline + 1
            from = start
        }
        if start > pending.startIndex { pending.removeSubrange(..<start) }
        scanned = pending.count
        // A long ordinary line is kept as it comes rather than held whole; a protocol line (a
        // result can be megabytes of JSON) is held until its end.
        if pending.count >= OutputCollector.longLine,
            !(parsesProtocol && !midLine && pending.starts(with: ChildProtocol.prefixBytes))
        {
            take(pending, terminated: false)
            pending.removeAll(keepingCapacity: true)
            scanned = 0
        }
    }

    /// Bytes of an ordinary line held back to look for its end before they are kept as they are.
    static let longLine = 65536

    mutating func finish() {
        if !pending.isEmpty { take(pending, terminated: false); pending = [] }
    }

    private mutating func take(_ line: [UInt8], terminated: Bool) {
        // A piece that continues a line already partly kept is never a protocol line.
        let continues = midLine
        midLine = !terminated
        if parsesProtocol, !continues, line.starts(with: ChildProtocol.prefixBytes) {
            let text = String(decoding: line, as: UTF8.self)
            switch ChildProtocol.parse(text) {
            case .progress(let value)?:
                progress = value
                lastProgressAt = MonotonicClock.now()
                onProgress?(value)
                return
            case .result(let payload)?:
                result = payload
                return
            case .checkpoint?, nil:
                break  // a checkpoint stays in the output, where the runner looks for it
            }
        }
        let room = limit - kept.count
        let bytes = terminated ? line + [UInt8(ascii: "\n")] : line
        if room >= bytes.count {
            kept.append(contentsOf: bytes)
        } else {
            if room > 0 { kept.append(contentsOf: bytes.prefix(room)) }
            dropped += bytes.count - max(room, 0)
        }
    }

    var text: String {
        let body = String(decoding: kept, as: UTF8.self)
        return dropped > 0 ? body + "\n[\(dropped) more bytes dropped]\n" : body
    }

    var lastLine: String? {
        text.split(separator: "\n").last.map(String.init)
    }

    /// The first line that reads like a fatal runtime error, for crash evidence.
    var firstFatalLine: String? {
        let markers = [
            "Fatal error", "fatal error", "Precondition failed", "Assertion failed",
            "SWIFT TASK CONTINUATION MISUSE", "Illegal instruction", "Segmentation fault",
            "Aborted", "terminate called", "panic",
        ]
        return text.split(separator: "\n").first { line in markers.contains { line.contains($0) } }
            .map { String($0).trimmingCharacters(in: .whitespaces) }
    }
}
