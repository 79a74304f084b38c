import Foundation

/// Why a loopback server could not start. Each case reads as one line naming the problem and,
/// where there is one, the valid range.
public enum LoopbackServerError: Error, Equatable, CustomStringConvertible {
    /// The host is not an IPv4 loopback address (`127.0.0.0/8`, such as `127.0.0.1`).
    case notLoopback(host: String)
    /// The port is outside `0...65535`.
    case portOutOfRange(Int)
    /// The address could not be bound or listened on (the port is taken, or reserved).
    case cannotBind(host: String, port: Int, errno: Int32)
    /// A socket or pipe call failed before binding (out of descriptors, for instance).
    case systemCall(String, errno: Int32)
    /// The system refused to start the server's thread.
    case cannotStartThread

    public var description: String {
        switch self {
        case .notLoopback(let host):
            return
                "loopback server: refusing to listen on '\(host)': only IPv4 loopback addresses (127.0.0.0/8, such as 127.0.0.1) are allowed"
        case .portOutOfRange(let port):
            return "loopback server: port \(port) is out of range: use 0 (any free port) or 1...65535"
        case .cannotBind(let host, let port, let code):
            return
                "loopback server: cannot listen on \(host):\(port): \(String(cString: strerror(code))) (errno \(code))"
        case .systemCall(let call, let code):
            return "loopback server: \(call) failed: \(String(cString: strerror(code))) (errno \(code))"
        case .cannotStartThread:
            return "loopback server: the system refused to start its thread"
        }
    }
}
