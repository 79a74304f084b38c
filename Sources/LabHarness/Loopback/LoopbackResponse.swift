/// What the loopback server sends for every request: one `200 OK` with a fixed body, and the
/// pacing that lets a test watch a client wait.
///
/// The timeline of one response, from the moment the request's head has been read:
/// - at `headerDelay`: the status line and headers (`Content-Length`, `Connection: close`);
/// - then the body in `chunkCount` pieces of near-equal size, piece `k` at
///   `headerDelay + k × chunkInterval` (so the first piece follows the headers at once, and the
///   last leaves at `headerDelay + (chunkCount - 1) × chunkInterval`);
/// - then the server closes the connection.
///
/// The body is framed by `Content-Length`, not chunked transfer-encoding: a client that gets
/// fewer bytes than announced knows the response was cut. Times are scheduled from one start
/// instant, so a late piece does not push back the pieces after it.
public struct LoopbackResponse: Sendable, Equatable {
    /// The body's bytes.
    public var body: [UInt8]
    /// Seconds between reading the request and sending the headers (0 or more).
    public var headerDelay: Seconds
    /// How many pieces the body is sent in (at least 1, at most one per byte).
    public var chunkCount: Int
    /// Seconds between two pieces of the body (0 or more).
    public var chunkInterval: Seconds

    /// A response with `body`; negative times count as 0 and `chunkCount` is brought into
    /// `1...max(1, body.count)`.
    public init(body: [UInt8], headerDelay: Seconds = 0, chunkCount: Int = 1, chunkInterval: Seconds = 0) {
        self.body = body
        self.headerDelay = max(0, headerDelay)
        self.chunkCount = min(max(1, chunkCount), max(1, body.count))
        self.chunkInterval = max(0, chunkInterval)
    }

    /// A response whose body is `size` bytes of a repeating `0...250` pattern, so a client can
    /// check every byte (`LoopbackResponse.patternByte(at:)`) without the test keeping a copy.
    public init(bodySize size: Int, headerDelay: Seconds = 0, chunkCount: Int = 1, chunkInterval: Seconds = 0) {
        self.init(
            body: (0..<max(0, size)).map(Self.patternByte(at:)), headerDelay: headerDelay,
            chunkCount: chunkCount, chunkInterval: chunkInterval)
    }

    /// The byte at `offset` of a pattern body (251 is prime, so the pattern never lines up with
    /// a power-of-two buffer size and a dropped or repeated block shows).
    public static func patternByte(at offset: Int) -> UInt8 { UInt8(offset % 251) }

    /// The seconds from the request to the last byte of the body, as scheduled (the network
    /// and the scheduler add to it).
    public var scheduledDuration: Seconds { headerDelay + Seconds(chunkCount - 1) * chunkInterval }

    /// The status line and headers, ending with the blank line.
    var head: [UInt8] {
        Array(
            ("HTTP/1.1 200 OK\r\n" + "Content-Type: application/octet-stream\r\n" + "Content-Length: \(body.count)\r\n"
                + "Connection: close\r\n\r\n").utf8)
    }

    /// The body cut into `chunkCount` pieces; the first ones take the remainder, one byte each.
    var chunks: [ArraySlice<UInt8>] {
        guard !body.isEmpty else { return [] }
        let base = body.count / chunkCount, extra = body.count % chunkCount
        var pieces: [ArraySlice<UInt8>] = []
        var start = 0
        for index in 0..<chunkCount {
            let end = start + base + (index < extra ? 1 : 0)
            pieces.append(body[start..<end])
            start = end
        }
        return pieces
    }
}
