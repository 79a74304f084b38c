import Foundation
// URLSession is in FoundationNetworking on Linux and in Foundation itself on Darwin: every Linux program
// imports it this way, and no harness file can re-export it without linking it into every lab binary.
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import LabHarness
import Synchronization
import XCTest

final class LoopbackServerTests: XCTestCase {
    /// The server's threads as the kernel lists them, by the names the server gives them.
    private func serverThreads() -> [ThreadInfo] {
        ThreadCensus.threads().filter { $0.name == "loopback.accept" || $0.name == "loopback.conn" }
    }

    /// This process's open descriptors, each as `number -> target` (Linux: `/proc/self/fd`,
    /// whose links name the socket or pipe by inode, so a number reused for another object
    /// reads as a new descriptor).
    private func openDescriptors() -> Set<String> {
        let directory = FileManager.default.fileExists(atPath: "/proc/self/fd") ? "/proc/self/fd" : "/dev/fd"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return Set(
            names.compactMap { name in
                // The listing's own descriptor is closed by now (no target) or names the directory.
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(name)"),
                    !target.hasSuffix("/fd")
                else { return nil }
                return "\(name) -> \(target)"
            })
    }

    /// The descriptors open now that were not open in `before`. Descriptors closed meanwhile
    /// by others (URLSession tidying up after an earlier test) do not count.
    private func descriptorsOpened(since before: Set<String>) -> Set<String> {
        openDescriptors().subtracting(before)
    }

    // MARK: Serving

    /// URLSession (the toolchain's FoundationNetworking on Linux) gets the whole body, with a
    /// 200 status, from a server on an ephemeral loopback port.
    func testServesItsBodyToURLSession() throws {
        let server = try LoopbackServer(response: LoopbackResponse(bodySize: 100_000, chunkCount: 3))
        defer { server.stop() }
        XCTAssertGreaterThan(server.port, 0, "port 0 asks for an ephemeral port, read back after binding")

        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let result = Mutex<(Data?, URLResponse?, Error?)?>(nil)
        let done = DispatchSemaphore(value: 0)
        session.dataTask(with: server.url()) { data, response, error in
            result.withLock { $0 = (data, response, error) }
            done.signal()
        }.resume()
        XCTAssertEqual(done.wait(timeout: .now() + 20), .success, "the data task never completed")
        let (data, response, error) = try XCTUnwrap(result.withLock { $0 })
        XCTAssertNil(error)
        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 200)
        XCTAssertEqual(data.map { [UInt8]($0) }, server.response.body)
        XCTAssertTrue(eventually { server.counts.responsesCompleted == 1 }, "\(server.counts)")
        XCTAssertEqual(server.counts.requestsRead, 1)
    }

    /// A raw socket client gets a well-formed HTTP/1.1 response: status line, Content-Length,
    /// `Connection: close`, then exactly the body, then the end of the connection.
    func testServesItsBodyToARawSocketClient() throws {
        let server = try LoopbackServer(response: LoopbackResponse(bodySize: 5000, chunkCount: 4))
        defer { server.stop() }
        let client = try LoopbackTestClient(port: server.port)
        XCTAssertTrue(client.readToEnd(), "the server never closed the connection")
        let head = String(decoding: client.received[0..<(client.headEnd ?? 0)], as: UTF8.self)
        XCTAssertTrue(head.hasPrefix("HTTP/1.1 200 OK\r\n"), head)
        XCTAssertTrue(head.contains("Content-Length: 5000\r\n"), head)
        XCTAssertTrue(head.contains("Connection: close\r\n"), head)
        XCTAssertEqual(client.body, server.response.body)
        XCTAssertTrue(eventually { server.counts.responsesCompleted == 1 })
        XCTAssertEqual(server.counts.bytesSent, client.received.count)
    }

    /// Requests on separate connections are served at the same time: while every response
    /// waits out a 30 s header delay, all four requests have been read. (A server that served
    /// one connection after another would read the second only 30 s later.)
    func testServesConnectionsInParallel() throws {
        let server = try LoopbackServer(response: LoopbackResponse(bodySize: 10, headerDelay: 30))
        let clients = try (0..<4).map { _ in try LoopbackTestClient(port: server.port) }
        XCTAssertTrue(eventually(within: 10) { server.counts.requestsRead == 4 }, "\(server.counts)")
        XCTAssertTrue(server.stop())
        XCTAssertEqual(server.counts.responsesStopped, 4)
        XCTAssertEqual(server.counts.responsesCompleted, 0)
        for client in clients { client.close() }
    }

    // MARK: Timing

    /// The headers wait `headerDelay` after the request: the first byte comes no sooner than
    /// the delay. (A lower bound only: a stall can make the byte later, never earlier.)
    func testTheHeaderDelayIsHonoured() throws {
        let server = try LoopbackServer(response: LoopbackResponse(bodySize: 10, headerDelay: 0.3))
        defer { server.stop() }
        let client = try LoopbackTestClient(port: server.port)
        XCTAssertTrue(client.readToEnd())
        let firstByte = try XCTUnwrap(client.arrivalTime(ofOffset: 0)) - client.sentAt
        XCTAssertGreaterThanOrEqual(firstByte, 0.3 - 0.002, "headers came before their delay")
        XCTAssertEqual(client.body.count, 10)
    }

    /// The body comes in its pieces on their schedule: piece k arrives no sooner than
    /// k × `chunkInterval` after the request was sent. (Lower bounds from the moment the
    /// request left: a stall of server or client can only make a piece later. A server that
    /// sent everything at once would deliver the last piece 0.75 s too soon.)
    func testBodyChunksArriveAtTheirIntervals() throws {
        let interval: Seconds = 0.25
        let response = LoopbackResponse(bodySize: 4000, chunkCount: 4, chunkInterval: interval)
        let server = try LoopbackServer(response: response)
        defer { server.stop() }
        let client = try LoopbackTestClient(port: server.port)
        XCTAssertTrue(client.readToEnd())
        XCTAssertEqual(client.body, response.body)
        let headEnd = try XCTUnwrap(client.headEnd)
        for index in 0..<4 {
            let arrived = try XCTUnwrap(client.arrivalTime(ofOffset: headEnd + index * 1000)) - client.sentAt
            XCTAssertGreaterThanOrEqual(arrived, Seconds(index) * interval - 0.002, "piece \(index) came early")
        }
        XCTAssertEqual(response.scheduledDuration, 0.75, accuracy: 1e-9)
        XCTAssertEqual(response.chunks.map(\.count), [1000, 1000, 1000, 1000])
    }

    // MARK: Bad input

    /// A port another socket already listens on is an error naming the address and the cause,
    /// thrown at once; so is the port of another loopback server.
    func testAPortAlreadyInUseIsAClearError() throws {
        let first = try LoopbackServer(response: LoopbackResponse(bodySize: 1))
        defer { first.stop() }
        let start = MonotonicClock.now()
        XCTAssertThrowsError(try LoopbackServer(port: first.port, response: LoopbackResponse(bodySize: 1))) { error in
            guard case LoopbackServerError.cannotBind(let host, let port, let code) = error else {
                return XCTFail("unexpected error \(error)")
            }
            XCTAssertEqual(host, "127.0.0.1")
            XCTAssertEqual(port, first.port)
            XCTAssertEqual(code, EADDRINUSE)
            let text = String(describing: error)
            XCTAssertTrue(text.contains("127.0.0.1:\(first.port)"), text)
            XCTAssertTrue(text.contains(String(cString: strerror(EADDRINUSE))), text)
        }
        XCTAssertLessThan(MonotonicClock.now() - start, 5, "a taken port must fail, not wait")

        // A plain socket bound (without SO_REUSEADDR) and listening blocks the port the same way.
        let other = SocketCalls.tcpSocket(nonBlocking: false)
        defer { closeDescriptor(other) }
        var address = in_addr()
        _ = inet_pton(AF_INET, "127.0.0.1", &address)
        var socketAddress = SocketCalls.ipv4SocketAddress(address, port: 0)
        let bound = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(other, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        XCTAssertEqual(bound, 0)
        XCTAssertEqual(listen(other, 1), 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(other, $0, &length) }
        }
        let taken = Int(UInt16(bigEndian: socketAddress.sin_port))
        XCTAssertThrowsError(try LoopbackServer(port: taken, response: LoopbackResponse(bodySize: 1))) { error in
            XCTAssertEqual(
                error as? LoopbackServerError, .cannotBind(host: "127.0.0.1", port: taken, errno: EADDRINUSE))
        }
    }

    /// Ports outside 0...65535 are refused with the valid range in the message.
    func testAnOutOfRangePortIsAClearError() {
        for port in [-1, 65536, 70000] {
            XCTAssertThrowsError(try LoopbackServer(port: port, response: LoopbackResponse(bodySize: 1))) { error in
                XCTAssertEqual(error as? LoopbackServerError, .portOutOfRange(port))
                XCTAssertTrue(String(describing: error).contains("1...65535"), "\(error)")
            }
        }
    }

    /// Only IPv4 loopback addresses are accepted; every other address, names and the wildcard
    /// included, is refused before any socket is made.
    func testEveryAddressButLoopbackIsRefused() {
        let before = openDescriptors()
        for host in [
            "0.0.0.0", "192.168.1.20", "10.0.0.1", "8.8.8.8", "128.0.0.1", "localhost", "::1", "", "127.0.0.1.5",
        ] {
            XCTAssertThrowsError(try LoopbackServer(host: host, response: LoopbackResponse(bodySize: 1)), host) {
                error in
                XCTAssertEqual(error as? LoopbackServerError, .notLoopback(host: host))
                XCTAssertTrue(String(describing: error).contains("127.0.0.0/8"), "\(error)")
            }
        }
        XCTAssertEqual(descriptorsOpened(since: before), [], "a refused address must not leave a socket behind")
    }

    // MARK: Clients that leave

    /// A client that reads the headers and part of the body, then closes, is counted; the
    /// server neither hangs on it nor dies of SIGPIPE (tried here with SIGPIPE's default
    /// action, which would kill this process), and serves the next client whole.
    func testAClientLeavingMidBodyIsCountedAndTheServerCarriesOn() throws {
        let previous = signal(SIGPIPE, SIG_DFL)
        defer { signal(SIGPIPE, previous) }
        let response = LoopbackResponse(bodySize: 200_000, chunkCount: 20, chunkInterval: 0.02)
        let server = try LoopbackServer(response: response)
        defer { server.stop() }

        let leaver = try LoopbackTestClient(port: server.port)
        XCTAssertTrue(leaver.read(upTo: 20_000))
        leaver.close()
        XCTAssertTrue(eventually(within: 10) { server.counts.clientsDisconnectedMidBody == 1 }, "\(server.counts)")
        XCTAssertEqual(server.counts.responsesCompleted, 0)
        XCTAssertLessThan(server.counts.bytesSent, response.body.count, "the server kept sending to nobody")

        let stayer = try LoopbackTestClient(port: server.port)
        XCTAssertTrue(stayer.readToEnd())
        XCTAssertEqual(stayer.body, response.body)
        XCTAssertTrue(eventually { server.counts.responsesCompleted == 1 }, "\(server.counts)")
        XCTAssertEqual(server.counts.clientsDisconnectedMidBody, 1)
    }

    /// The server's writes never raise SIGPIPE, whose default action kills the process: a write
    /// to a TCP peer that closed and then reset the connection fails with `EPIPE` instead. (The
    /// server usually notices a departed client while it waits between pieces; this provokes
    /// the write that would raise the signal, on a connection set up by hand.)
    func testAWriteToAPeerThatLeftFailsInsteadOfRaisingSIGPIPE() throws {
        let previous = signal(SIGPIPE, SIG_DFL)
        defer { signal(SIGPIPE, previous) }
        let listener = SocketCalls.tcpSocket(nonBlocking: false)
        defer { closeDescriptor(listener) }
        var address = in_addr()
        _ = inet_pton(AF_INET, "127.0.0.1", &address)
        var socketAddress = SocketCalls.ipv4SocketAddress(address, port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &socketAddress) {
            try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                guard bind(listener, pointer, length) == 0, listen(listener, 1) == 0,
                    getsockname(listener, pointer, &length) == 0
                else { throw POSIXError(.EADDRINUSE) }
            }
        }
        let writer = SocketCalls.tcpSocket(nonBlocking: false)
        defer { closeDescriptor(writer) }
        let connected = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(writer, $0, length) }
        }
        XCTAssertEqual(connected, 0)
        let peer = SocketCalls.accept(listener)
        XCTAssertGreaterThanOrEqual(peer, 0)
        closeDescriptor(peer)  // a clean close: the writer gets a FIN, then a reset for what it sends next

        var failure: Int32 = 0
        let byte: [UInt8] = [1]
        for _ in 0..<200 where failure == 0 {
            let sent = byte.withUnsafeBytes { SocketCalls.send(writer, $0) }
            if sent < 0 { failure = errno } else { MonotonicClock.sleep(for: 0.005) }
        }
        XCTAssertEqual(failure, EPIPE, "still alive, but the failure was \(failure)")
    }

    // MARK: Stopping

    /// Stopped while a response waits out a 30 s header delay, the server returns at once
    /// (far inside the delay), cuts the response, and leaves no thread and no descriptor.
    func testStoppingWithARequestInFlightReleasesEveryThreadAndDescriptor() throws {
        XCTAssertEqual(serverThreads(), [], "another test left a server running")
        let descriptorsBefore = openDescriptors()
        let server = try LoopbackServer(response: LoopbackResponse(bodySize: 10, headerDelay: 30))
        let client = try LoopbackTestClient(port: server.port)
        XCTAssertTrue(eventually { server.counts.requestsRead == 1 })
        XCTAssertEqual(serverThreads().count, 2, "one accepting thread, one per connection")

        let start = MonotonicClock.now()
        let released = server.stop(within: 5)
        let elapsed = MonotonicClock.now() - start
        XCTAssertTrue(released, "a server thread did not finish within the stop budget")
        XCTAssertLessThan(elapsed, 30 / 3, "stop waited for the header delay instead of cutting it")
        XCTAssertEqual(server.counts.responsesStopped, 1)
        XCTAssertEqual(serverThreads(), [], "stop returned with server threads alive")
        XCTAssertTrue(client.readToEnd(budget: 5), "the client never saw the connection close")
        XCTAssertEqual(client.received, [], "a cut response sends nothing")
        client.close()
        XCTAssertEqual(descriptorsOpened(since: descriptorsBefore), [], "a descriptor was left open")
        XCTAssertTrue(server.stop(), "a second stop is a no-op")
    }

    /// Stopped while blocked on a client that reads nothing (the send buffer full), the server
    /// still returns at once and releases everything.
    func testStoppingWhileBlockedOnAFullSendBufferReleasesEverything() throws {
        let descriptorsBefore = openDescriptors()
        // A plain body: a pattern of this size takes seconds to build in a debug build.
        let server = try LoopbackServer(response: LoopbackResponse(body: [UInt8](repeating: 7, count: 16 << 20)))
        let client = try LoopbackTestClient(port: server.port)
        // Wait until the kernel buffers are full and the server is parked on them.
        var last = -1
        XCTAssertTrue(
            eventually(within: 10) {
                let sent = server.counts.bytesSent
                defer { last = sent }
                MonotonicClock.sleep(for: 0.05)
                return sent > 0 && sent == last
            })
        XCTAssertLessThan(server.counts.bytesSent, 16 << 20, "the kernel swallowed the whole body")
        XCTAssertTrue(server.stop(within: 5))
        XCTAssertEqual(server.counts.responsesStopped, 1)
        XCTAssertEqual(serverThreads(), [])
        client.close()
        XCTAssertEqual(descriptorsOpened(since: descriptorsBefore), [])
    }

    /// A server nobody stops is stopped when its last reference goes.
    func testDroppingTheLastReferenceStopsTheServer() throws {
        let descriptorsBefore = openDescriptors()
        var port = 0
        do {
            let server = try LoopbackServer(response: LoopbackResponse(bodySize: 10, headerDelay: 30))
            port = server.port
            let client = try LoopbackTestClient(port: port)
            XCTAssertTrue(eventually { server.counts.requestsRead == 1 })
            client.close()
        }
        XCTAssertEqual(serverThreads(), [])
        XCTAssertEqual(descriptorsOpened(since: descriptorsBefore), [])
        // The port is free again: a new server can take it at once.
        let again = try LoopbackServer(port: port, response: LoopbackResponse(bodySize: 1))
        again.stop()
    }
}
