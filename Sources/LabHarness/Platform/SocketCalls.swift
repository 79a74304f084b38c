import CLabSupport
import Foundation

/// The few socket calls whose spelling differs between Glibc and Darwin, for the loopback
/// server and its tests; each is one call of the C shim.
///
/// Two properties matter more than the spelling:
/// - every descriptor is close-on-exec from the start where the system allows (Linux
///   `SOCK_CLOEXEC`, `accept4`), so a child process spawned by another thread at the same moment
///   never inherits it (an inherited listening socket would keep the port bound after the server
///   stopped); Darwin has neither, so `FD_CLOEXEC` follows at once;
/// - writing to a peer that has gone away fails with `EPIPE` instead of raising `SIGPIPE`, whose
///   default action kills the whole process (Linux: `MSG_NOSIGNAL` on each send; Darwin:
///   `SO_NOSIGPIPE` on each socket). The process's signal dispositions are left alone.
enum SocketCalls {
    /// A new IPv4 TCP socket, close-on-exec, non-blocking if asked; -1 with `errno` on failure.
    static func tcpSocket(nonBlocking: Bool) -> Int32 {
        clab_tcp_socket(nonBlocking ? 1 : 0)
    }

    /// Accepts one connection on listening socket `fd`: the new descriptor is close-on-exec
    /// and non-blocking; -1 with `errno` when none is waiting or on failure.
    static func accept(_ fd: Int32) -> Int32 {
        clab_accept(fd)
    }

    /// `send` that never raises `SIGPIPE`: a vanished peer gives -1 with `EPIPE` or `ECONNRESET`.
    static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
        clab_send(fd, bytes.baseAddress, UInt(bytes.count))
    }

    /// The socket address for IPv4 `address` (network byte order) and `port`.
    static func ipv4SocketAddress(_ address: in_addr, port: UInt16) -> sockaddr_in {
        var socketAddress = sockaddr_in()
        _ = withUnsafeMutableBytes(of: &socketAddress) {
            clab_ipv4_address($0.baseAddress, UInt($0.count), address.s_addr, port)
        }
        return socketAddress
    }
}
