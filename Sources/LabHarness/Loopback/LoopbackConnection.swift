import Foundation

/// One client connection of a loopback server: read the request's head, then send the
/// response on its timeline (see `LoopbackResponse`), then let the caller close the socket.
///
/// Every wait goes through the server's `wait`, so a stop interrupts it at once; every write
/// is non-blocking and never raises `SIGPIPE`, so a client that leaves costs one failed write
/// and a count, never the process.
struct LoopbackConnection {
    /// How one step of the response ended.
    enum Step {
        case done
        case clientGone
        case stopped
    }

    /// The largest request head read; a longer one is dropped (a GET's head is a few hundred bytes).
    static let maximumHeadSize = 16 * 1024

    let fd: Int32
    let server: LoopbackServerState

    func serve() {
        // Without TCP_NODELAY, a small piece sent right after the headers can wait for the
        // client's delayed acknowledgement (tens of milliseconds), which would blur the timeline.
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        guard readRequestHead() else { return }
        server.count { $0.requestsRead += 1 }
        let response = server.response
        let start = MonotonicClock.now()
        var step = pause(until: start + response.headerDelay)
        if step == .done { step = send(response.head[...]) }
        for (index, chunk) in response.chunks.enumerated() where step == .done {
            if index > 0 { step = pause(until: start + response.headerDelay + Seconds(index) * response.chunkInterval) }
            if step == .done { step = send(chunk) }
        }
        switch step {
        case .done: server.count { $0.responsesCompleted += 1 }
        case .clientGone: server.count { $0.clientsDisconnectedMidBody += 1 }
        case .stopped: server.count { $0.responsesStopped += 1 }
        }
    }

    /// Reads up to the blank line that ends a request's head; false when the client left, sent
    /// too much, stayed silent past the idle limit, or the server stopped. A request body (which
    /// a GET does not have) is not read.
    private func readRequestHead() -> Bool {
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        while head.count <= Self.maximumHeadSize {
            switch server.wait(for: fd, events: Int16(POLLIN), until: MonotonicClock.now() + server.idleLimit) {
            case .ready, .hangUp: break
            case .timedOut, .stopped: return false
            }
            let (received, code) = buffer.withUnsafeMutableBytes { raw in
                let n = recv(fd, raw.baseAddress, raw.count, 0)
                return (n, errno)
            }
            if received == 0 { return false }
            if received < 0 {
                if code == EAGAIN || code == EWOULDBLOCK || code == EINTR { continue }
                return false
            }
            let searchFrom = max(0, head.count - 3)
            head += buffer[0..<received]
            if head[searchFrom...].firstRange(of: end) != nil { return true }
        }
        return false
    }

    /// Sleeps until `deadline`, watching for the client hanging up and for a stop.
    private func pause(until deadline: Seconds) -> Step {
        switch server.wait(for: fd, events: 0, until: deadline) {
        case .timedOut, .ready: return .done
        case .hangUp: return .clientGone
        case .stopped: return .stopped
        }
    }

    /// Writes all of `bytes`, waiting for room in the send buffer as needed.
    private func send(_ bytes: ArraySlice<UInt8>) -> Step {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            if server.isStopping { return .stopped }
            let (sent, code) = bytes[offset...].withUnsafeBytes { raw in
                let n = SocketCalls.send(fd, raw)
                return (n, errno)
            }
            if sent > 0 {
                offset += sent
                server.count { $0.bytesSent += sent }
                continue
            }
            guard sent < 0, code == EAGAIN || code == EWOULDBLOCK || code == EINTR else { return .clientGone }
            switch server.wait(for: fd, events: Int16(POLLOUT), until: MonotonicClock.now() + server.idleLimit) {
            case .ready: continue
            case .hangUp, .timedOut: return .clientGone
            case .stopped: return .stopped
            }
        }
        return .done
    }
}
