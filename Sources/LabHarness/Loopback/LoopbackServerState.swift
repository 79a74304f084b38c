import Foundation
import Synchronization

/// What a loopback server's threads share: the descriptors, the stop signal, the counts and
/// the connection threads.
///
/// It is a separate object from `LoopbackServer` so that the threads keep only this alive, not
/// the server: when the last reference to a server goes, its `deinit` runs and stops them.
///
/// Stopping works by one byte written to a pipe that every wait of every thread polls along
/// with its socket. The byte is never read, so the pipe stays readable and every wait, present
/// or future, returns at once: no thread can sleep through a stop, whatever it was doing
/// (accepting, reading a request, sitting in a header delay, blocked on a full send buffer).
final class LoopbackServerState: Sendable {
    /// What a wait ended with.
    enum Readiness {
        /// The socket is ready for what was asked.
        case ready
        /// The peer hung up or the socket reports an error.
        case hangUp
        /// The deadline passed.
        case timedOut
        /// `stop()` was called.
        case stopped
    }

    /// The listening socket (non-blocking).
    let listener: Int32
    /// The stop pipe: read end polled by every wait, write end written once by `requestStop()`.
    let wakeRead: Int32
    let wakeWrite: Int32
    /// What every request gets.
    let response: LoopbackResponse
    /// How long a connection may sit without a byte moving (no request arriving, a client not
    /// reading) before the server gives up on it, so an idle client cannot hold a thread forever.
    let idleLimit: Seconds = 30

    private let stopRequested = Atomic<Bool>(false)
    private let countStore = Mutex(LoopbackServerCounts())
    private let connectionThreads = Mutex<[JoinableThread]>([])
    /// Entered for the accepting thread and each connection thread, left as each ends.
    let running = DispatchGroup()

    init(listener: Int32, wakeRead: Int32, wakeWrite: Int32, response: LoopbackResponse) {
        self.listener = listener
        self.wakeRead = wakeRead
        self.wakeWrite = wakeWrite
        self.response = response
    }

    var counts: LoopbackServerCounts { countStore.withLock { $0 } }

    func count(_ change: (inout LoopbackServerCounts) -> Void) { countStore.withLock { change(&$0) } }

    var isStopping: Bool { stopRequested.load(ordering: .acquiring) }

    /// Tells every thread to finish; returns at once.
    func requestStop() {
        guard !stopRequested.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// Waits until `fd` is ready for `events` (`POLLIN`, `POLLOUT`; 0 to watch only for
    /// hang-up), the monotonic clock reaches `deadline` (`.infinity`: no deadline), or the
    /// server stops, whichever comes first. `fd` nil: a plain pause that a stop interrupts.
    func wait(for fd: Int32?, events: Int16, until deadline: Seconds) -> Readiness {
        var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        if let fd { fds.append(pollfd(fd: fd, events: events, revents: 0)) }
        while true {
            if isStopping { return .stopped }
            var timeout: Int32 = -1
            if deadline < .infinity {
                let remaining = deadline - MonotonicClock.now()
                if remaining <= 0 { return .timedOut }
                timeout = Int32(min((remaining * 1000).rounded(.up), 60_000))
            }
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                return .hangUp
            }
            if fds[0].revents != 0 { return .stopped }
            if fds.count > 1, fds[1].revents != 0 {
                let trouble = Int16(POLLHUP) | Int16(POLLERR) | Int16(POLLNVAL)
                // When reading, a hang-up may come with the last bytes: let `recv` tell.
                if fds[1].revents & trouble != 0, events & Int16(POLLIN) == 0 { return .hangUp }
                return .ready
            }
            // A timeout (poll may wake a little early): the loop checks the deadline again.
        }
    }

    /// The accepting thread's loop: one thread per connection, until the server stops.
    func acceptLoop() {
        while true {
            joinEndedConnections()
            switch wait(for: listener, events: Int16(POLLIN), until: .infinity) {
            case .stopped: return
            case .ready, .hangUp, .timedOut: break
            }
            let connection = SocketCalls.accept(listener)
            guard connection >= 0 else {
                // EAGAIN: another wake-up took it. Out of descriptors (EMFILE): poll would say
                // "readable" again at once, so pause instead of spinning.
                let code = errno
                if code != EAGAIN && code != EWOULDBLOCK && code != EINTR && code != ECONNABORTED {
                    _ = wait(for: nil, events: 0, until: MonotonicClock.now() + 0.05)
                }
                continue
            }
            count { $0.connectionsAccepted += 1 }
            startConnectionThread(connection)
        }
    }

    private func startConnectionThread(_ connection: Int32) {
        running.enter()
        let thread = JoinableThread(name: "loopback.conn") { [self] in
            LoopbackConnection(fd: connection, server: self).serve()
            close(connection)
            running.leave()
        }
        guard let thread else {
            close(connection)
            running.leave()
            return
        }
        connectionThreads.withLock { $0.append(thread) }
    }

    /// Joins the connection threads whose work is over, so that a long-lived server does not
    /// keep one ended thread (and its stack) per connection it ever served.
    private func joinEndedConnections() {
        connectionThreads.withLock { threads in
            threads.removeAll { thread in
                guard thread.hasEnded else { return false }
                thread.join()
                return true
            }
        }
    }

    /// Joins every connection thread; call only once `running` shows them all finished.
    func joinAllConnections() {
        let threads = connectionThreads.withLock { threads in
            defer { threads.removeAll() }
            return threads
        }
        for thread in threads { thread.join() }
    }

    /// Closes the listening socket and the stop pipe; call only once no thread can use them.
    func closeDescriptors() {
        close(listener)
        close(wakeRead)
        close(wakeWrite)
    }
}
