import Foundation

/// The few socket calls whose spelling differs between Glibc and Darwin, for the loopback
/// server and its tests.
///
/// Two properties matter more than the spelling:
/// - every descriptor is close-on-exec from the start, so a child process spawned by another
///   thread at the same moment never inherits it (an inherited listening socket would keep the
///   port bound after the server stopped);
/// - writing to a peer that has gone away fails with `EPIPE` instead of raising `SIGPIPE`, whose
///   default action kills the whole process (Linux: `MSG_NOSIGNAL` on each send; Darwin:
///   `SO_NOSIGPIPE` on each socket). The process's signal dispositions are left alone.
enum SocketCalls {
    /// A new IPv4 TCP socket, close-on-exec, non-blocking if asked; -1 with `errno` on failure.
    static func tcpSocket(nonBlocking: Bool) -> Int32 {
        #if os(Linux)
        var type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        if nonBlocking { type |= Int32(SOCK_NONBLOCK.rawValue) }
        return socket(AF_INET, type, 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        guard fd >= 0 else { return fd }
        prepareDarwinSocket(fd, nonBlocking: nonBlocking)
        return fd
        #endif
    }

    /// Accepts one connection on listening socket `fd`: the new descriptor is close-on-exec
    /// and non-blocking; -1 with `errno` when none is waiting or on failure.
    ///
    /// Glibc's module does not export `accept4` (it needs `_GNU_SOURCE`), so the flags are set
    /// just after `accept`: a child spawned in that instant could inherit the connection (not
    /// the listening socket, which is close-on-exec from birth). A response is framed by its
    /// `Content-Length`, so even then the client reads it whole.
    static func accept(_ fd: Int32) -> Int32 {
        #if os(Linux)
        let connection = Glibc.accept(fd, nil, nil)
        guard connection >= 0 else { return connection }
        _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
        _ = fcntl(connection, F_SETFL, fcntl(connection, F_GETFL) | O_NONBLOCK)
        return connection
        #else
        let connection = Darwin.accept(fd, nil, nil)
        guard connection >= 0 else { return connection }
        prepareDarwinSocket(connection, nonBlocking: true)
        return connection
        #endif
    }

    /// `send` that never raises `SIGPIPE`: a vanished peer gives -1 with `EPIPE` or `ECONNRESET`.
    static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
        #if os(Linux)
        return Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
        #else
        return Darwin.send(fd, bytes.baseAddress, bytes.count, 0)
        #endif
    }

    /// The socket address for IPv4 `address` (network byte order) and `port`.
    static func ipv4SocketAddress(_ address: in_addr, port: UInt16) -> sockaddr_in {
        var socketAddress = sockaddr_in()
        #if !os(Linux)
        socketAddress.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = port.bigEndian
        socketAddress.sin_addr = address
        return socketAddress
    }

    #if !os(Linux)
    private static func prepareDarwinSocket(_ fd: Int32, nonBlocking: Bool) {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        if nonBlocking { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
    }
    #endif
}
