import Foundation
@testable import LabHarness

/// A plain-socket HTTP client for the loopback server's tests: it sends one GET and reads the
/// answer byte by byte as it arrives, noting when each read returned, so a test can see the
/// server's timeline without an HTTP library in between. Every read has a budget.
final class LoopbackTestClient {
    /// One `recv` that returned bytes, and the monotonic time it returned.
    struct Arrival {
        var time: Seconds
        var bytes: [UInt8]
    }

    let fd: Int32
    /// When the request was sent.
    private(set) var sentAt: Seconds = 0
    private(set) var arrivals: [Arrival] = []
    private(set) var sawEnd = false
    private var closed = false

    /// Connects to `127.0.0.1:port` (blocking socket) and sends a GET for `/`.
    init(port: Int) throws {
        fd = SocketCalls.tcpSocket(nonBlocking: false)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var address = in_addr()
        _ = inet_pton(AF_INET, "127.0.0.1", &address)
        var socketAddress = SocketCalls.ipv4SocketAddress(address, port: UInt16(port))
        let connected = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            closeDescriptor(fd)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        let request = Array("GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUser-Agent: lab-test\r\n\r\n".utf8)
        sentAt = MonotonicClock.now()
        _ = request.withUnsafeBytes { SocketCalls.send(fd, $0) }
    }

    deinit { close() }

    /// All bytes received so far.
    var received: [UInt8] { arrivals.flatMap(\.bytes) }

    /// The offset just past the blank line ending the response head, once it has arrived.
    var headEnd: Int? {
        let bytes = received
        return bytes.firstRange(of: Array("\r\n\r\n".utf8)).map(\.upperBound)
    }

    /// The body received so far (everything after the head).
    var body: [UInt8] { headEnd.map { Array(received[$0...]) } ?? [] }

    /// The time the first byte at or past offset `offset` arrived, if it has.
    func arrivalTime(ofOffset offset: Int) -> Seconds? {
        var total = 0
        for arrival in arrivals {
            total += arrival.bytes.count
            if total > offset { return arrival.time }
        }
        return nil
    }

    /// Reads until `count` bytes in all have arrived, the server closes, or `budget` seconds pass.
    /// Returns whether `count` bytes arrived.
    @discardableResult
    func read(upTo count: Int, budget: Seconds = 10) -> Bool {
        let deadline = MonotonicClock.now() + budget
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while received.count < count && !sawEnd {
            let remaining = deadline - MonotonicClock.now()
            guard remaining > 0 else { return false }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32((remaining * 1000).rounded(.up)))
            if ready <= 0 { continue }
            let wanted = min(buffer.count, count - received.count)
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, wanted, 0) }
            if n <= 0 { sawEnd = true; break }
            arrivals.append(Arrival(time: MonotonicClock.now(), bytes: Array(buffer[0..<n])))
        }
        return received.count >= count
    }

    /// Reads until the server closes the connection or `budget` seconds pass; true if it closed.
    @discardableResult
    func readToEnd(budget: Seconds = 10) -> Bool {
        read(upTo: Int.max, budget: budget)
        return sawEnd
    }

    /// Closes the socket (once).
    func close() {
        guard !closed else { return }
        closed = true
        closeDescriptor(fd)
    }
}

/// `close(2)`, under a name that the client's own `close()` does not hide.
func closeDescriptor(_ fd: Int32) {
    _ = close(fd)
}
