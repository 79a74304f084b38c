import CLabSupport
import Foundation
import Synchronization

/// A small HTTP/1.1 server inside the calling process, on a loopback address, for measuring
/// what a real HTTP client (`URLSession`, a raw socket) does while it waits for a response.
///
/// ```swift
/// let server = try LoopbackServer(response: LoopbackResponse(bodySize: 4096, headerDelay: 0.2,
///                                                            chunkCount: 4, chunkInterval: 0.1))
/// defer { server.stop() }
/// // fetch server.url with any client; server.counts says what was served
/// ```
///
/// The contract:
/// - **Loopback only, ever.** The host must be a numeric IPv4 loopback address (`127.0.0.0/8`);
///   anything else, `0.0.0.0` and names included, is refused with `.notLoopback` before a socket
///   exists. A lab that measures clients must never expose a port to the network it runs on.
/// - **Any free port by default.** Port 0 asks the kernel for an ephemeral port, read back into
///   `port`, so parallel tests never collide. A taken, reserved or out-of-range port is a thrown
///   `LoopbackServerError` with a one-line description, at once: nothing retries or waits.
/// - **Every request gets the same response** (`LoopbackResponse`: a `200 OK`, a delay before the
///   headers, the body in timed pieces, then the connection closes). Each connection gets its
///   own thread, so a slow response never delays another.
/// - **`counts`** says what was served: requests read, bytes sent, responses completed, clients
///   that left early, responses cut by a stop.
/// - **`stop()` is bounded.** It wakes every thread wherever it waits, joins them and closes every
///   descriptor, returning within its budget even with a response in the middle of a delay; after
///   a `true` return no thread and no descriptor of the server is left. The server also stops
///   when its last reference goes (`deinit`).
/// - **A client that vanishes mid-body costs a count, not the process**: writes never raise
///   `SIGPIPE`, and the process's signal handling is left as it was.
///
/// Descriptors are close-on-exec, so children spawned while the server runs (the lab's trials)
/// do not inherit the port. One thread accepts (`loopback.accept` in `ThreadCensus`), one thread
/// per connection serves (`loopback.conn`).
public final class LoopbackServer: Sendable {
    /// The address listened on, as given (`127.0.0.1` by default).
    public let host: String
    /// The port listened on: the one asked for, or the one the kernel chose for port 0.
    public let port: Int
    /// What every request gets.
    public var response: LoopbackResponse { state.response }

    private let state: LoopbackServerState
    private let acceptor: JoinableThread
    private let stopped = Mutex(false)

    /// Starts listening on `host:port` and serving `response` to every request.
    ///
    /// - Throws: `LoopbackServerError`: `.notLoopback` for any host outside `127.0.0.0/8`,
    ///   `.portOutOfRange` outside `0...65535`, `.cannotBind` when the address is taken or
    ///   refused, `.systemCall` / `.cannotStartThread` when the system is out of resources.
    public init(host: String = "127.0.0.1", port: Int = 0, response: LoopbackResponse) throws {
        guard (0...65535).contains(port) else { throw LoopbackServerError.portOutOfRange(port) }
        var address = in_addr()
        guard inet_pton(AF_INET, host, &address) == 1, UInt32(bigEndian: address.s_addr) >> 24 == 127 else {
            throw LoopbackServerError.notLoopback(host: host)
        }
        let listener = SocketCalls.tcpSocket(nonBlocking: true)
        guard listener >= 0 else { throw LoopbackServerError.systemCall("socket", errno: errno) }
        // SO_REUSEADDR lets a fixed port be bound again while connections the previous server
        // closed sit in TIME_WAIT; it does not let two sockets listen on one port.
        var one: Int32 = 1
        _ = setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var socketAddress = SocketCalls.ipv4SocketAddress(address, port: UInt16(port))
        let bound = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 64) == 0 else {
            let code = errno
            close(listener)
            throw LoopbackServerError.cannotBind(host: host, port: port, errno: code)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        guard named == 0 else {
            let code = errno
            close(listener)
            throw LoopbackServerError.systemCall("getsockname", errno: code)
        }
        var wake: [Int32] = [-1, -1]
        guard clab_pipe_cloexec(&wake) == 0 else {
            let code = errno
            close(listener)
            throw LoopbackServerError.systemCall("pipe", errno: code)
        }
        let state = LoopbackServerState(listener: listener, wakeRead: wake[0], wakeWrite: wake[1], response: response)
        state.running.enter()
        guard
            let acceptor = JoinableThread(
                name: "loopback.accept",
                { [state] in
                    state.acceptLoop()
                    state.running.leave()
                })
        else {
            state.running.leave()
            state.closeDescriptors()
            throw LoopbackServerError.cannotStartThread
        }
        self.host = host
        self.port = Int(UInt16(bigEndian: socketAddress.sin_port))
        self.state = state
        self.acceptor = acceptor
    }

    deinit { stop() }

    /// `http://host:port/` followed by `path` (without its leading slash).
    public func url(path: String = "") -> URL {
        URL(string: "http://\(host):\(port)/\(path.hasPrefix("/") ? String(path.dropFirst()) : path)")!
    }

    /// What the server has done so far.
    public var counts: LoopbackServerCounts { state.counts }

    /// Stops serving: wakes every thread, waits up to `budget` seconds for them to finish,
    /// joins them and closes every descriptor. Responses in progress are cut (counted in
    /// `responsesStopped`); their clients see the connection close.
    ///
    /// Returns true when everything was released. False means a thread did not finish within
    /// the budget (only a machine stalled longer than the budget could cause it): its
    /// descriptors are then left open rather than closed under it, and a later `stop()` tries
    /// again. Calling it after a true return does nothing and returns true.
    @discardableResult
    public func stop(within budget: Seconds = 5) -> Bool {
        stopped.withLock { done in
            if done { return true }
            state.requestStop()
            guard state.running.wait(timeout: .now() + max(0, budget)) == .success else { return false }
            acceptor.join()
            state.joinAllConnections()
            state.closeDescriptors()
            done = true
            return true
        }
    }
}
