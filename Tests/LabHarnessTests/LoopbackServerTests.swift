import Foundation
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

    /// This process's open descriptors (Linux: `/proc/self/fd`; elsewhere `/dev/fd`). The
    /// directory's own descriptor is in both counts, so it cancels out.
    private func openDescriptors() -> Int {
        let directory = FileManager.default.fileExists(atPath: "/proc/self/fd") ? "/proc/self/fd" : "/dev/fd"
        return (try? FileManager.default.contentsOfDirectory(atPath: directory).count) ?? -1
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

    /// Requests on separate connections are served at the same time: two clients of a server
    /// that holds its headers 0.4 s both finish in far less than twice that.
    func testServesConnectionsInParallel() throws {
        let server = try LoopbackServer(response: LoopbackResponse(bodySize: 10, headerDelay: 0.4))
        defer { server.stop() }
        let start = MonotonicClock.now()
        let clients = try (0..<4).map { _ in try LoopbackTestClient(port: server.port) }
        for client in clients { XCTAssertTrue(client.readToEnd(budget: 20)) }
        let elapsed = MonotonicClock.now() - start
        // Serial service would take at least 4 × 0.4 s; a ratio, not a deadline.
        XCTAssertLessThan(elapsed, 4 * 0.4, "the server served its connections one after another")
        XCTAssertEqual(server.counts.requestsRead, 4)
    }

    // MARK: Timing

    /// The headers wait `headerDelay` after the request: the first byte comes no sooner than
    /// the delay, and later than from a server without delay measured at the same moment.
    func testTheHeaderDelayIsHonoured() throws {
        let delayed = try LoopbackServer(response: LoopbackResponse(bodySize: 10, headerDelay: 0.3))
        let prompt = try LoopbackServer(response: LoopbackResponse(bodySize: 10))
        defer { delayed.stop(); prompt.stop() }
        let slow = try LoopbackTestClient(port: delayed.port)
        let fast = try LoopbackTestClient(port: prompt.port)
        XCTAssertTrue(slow.readToEnd())
        XCTAssertTrue(fast.readToEnd())
        let slowFirstByte = try XCTUnwrap(slow.arrivalTime(ofOffset: 0)) - slow.sentAt
        let fastFirstByte = try XCTUnwrap(fast.arrivalTime(ofOffset: 0)) - fast.sentAt
        XCTAssertGreaterThanOrEqual(slowFirstByte, 0.3 - 0.002, "headers came before their delay")
        XCTAssertGreaterThan(slowFirstByte, fastFirstByte)
    }

    /// The body comes in its pieces on their schedule: piece k arrives no sooner than
    /// k × `chunkInterval` after the headers, and the first piece arrives before the last.
    func testBodyChunksArriveAtTheirIntervals() throws {
        let interval: Seconds = 0.25
        let response = LoopbackResponse(bodySize: 4000, chunkCount: 4, chunkInterval: interval)
        let server = try LoopbackServer(response: response)
        defer { server.stop() }
        let client = try LoopbackTestClient(port: server.port)
        XCTAssertTrue(client.readToEnd())
        XCTAssertEqual(client.body, response.body)
        let headEnd = try XCTUnwrap(client.headEnd)
        let headersAt = try XCTUnwrap(client.arrivalTime(ofOffset: headEnd - 1))
        var times: [Seconds] = []
        for index in 0..<4 {
            let arrived = try XCTUnwrap(client.arrivalTime(ofOffset: headEnd + index * 1000))
            times.append(arrived)
            // The server schedules piece k at headers + k × interval; a stall can only delay it.
            XCTAssertGreaterThanOrEqual(arrived - headersAt, Seconds(index) * interval - 0.01, "piece \(index) came early")
        }
        XCTAssertLessThan(times[0], times[3], "every piece came in one burst")
        XCTAssertEqual(response.scheduledDuration, 0.75, accuracy: 1e-9)
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
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(other, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        XCTAssertEqual(bound, 0)
        XCTAssertEqual(listen(other, 1), 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(other, $0, &length) }
        }
        let taken = Int(UInt16(bigEndian: socketAddress.sin_port))
        XCTAssertThrowsError(try LoopbackServer(port: taken, response: LoopbackResponse(bodySize: 1))) { error in
            XCTAssertEqual(error as? LoopbackServerError, .cannotBind(host: "127.0.0.1", port: taken, errno: EADDRINUSE))
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
        for host in ["0.0.0.0", "192.168.1.20", "10.0.0.1", "8.8.8.8", "128.0.0.1", "localhost", "::1", "", "127.0.0.1.5"] {
            XCTAssertThrowsError(try LoopbackServer(host: host, response: LoopbackResponse(bodySize: 1)), host) { error in
                XCTAssertEqual(error as? LoopbackServerError, .notLoopback(host: host))
                XCTAssertTrue(String(describing: error).contains("127.0.0.0/8"), "\(error)")
            }
        }
        XCTAssertEqual(openDescriptors(), before, "a refused address must not leave a socket behind")
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
        XCTAssertEqual(openDescriptors(), descriptorsBefore, "a descriptor was left open")
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
        XCTAssertTrue(eventually(within: 10) {
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
        XCTAssertEqual(openDescriptors(), descriptorsBefore)
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
        XCTAssertEqual(openDescriptors(), descriptorsBefore)
        // The port is free again: a new server can take it at once.
        let again = try LoopbackServer(port: port, response: LoopbackResponse(bodySize: 1))
        again.stop()
    }
}
