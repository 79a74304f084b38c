/// What a loopback server has done so far, as one consistent snapshot.
///
/// A test waits for these to reach a value (a request read, a client's departure noticed)
/// rather than sleeping for a guessed time, and checks them after `stop()` to see what the
/// client really got from the server.
public struct LoopbackServerCounts: Sendable, Equatable, Codable {
    /// Connections accepted on the listening socket.
    var connectionsAccepted = 0
    /// Requests whose head (request line and headers, up to the blank line) was read in full.
    public var requestsRead = 0
    /// Responses sent to the last byte of the body.
    public var responsesCompleted = 0
    /// Bytes written to clients, headers and body together.
    public var bytesSent = 0
    /// Clients that went away before the last byte of the body was sent. The server notices
    /// when a write fails (`EPIPE`, `ECONNRESET`) or the socket reports hang-up or error; a
    /// client that left during the header delay is noticed when the headers are sent. A client
    /// that stays connected but reads nothing for the server's idle limit (30 s) counts here too.
    public var clientsDisconnectedMidBody = 0
    /// Responses cut short because `stop()` was called while they were in progress.
    public var responsesStopped = 0

    public init() {}
}
