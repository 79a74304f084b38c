import CLabSupport
import Foundation
import Synchronization

/// The harness's own threads (a completion watchdog, a hang watch, a sampler, the reader of a
/// captured standard error), so that a count of the threads a test's code added leaves them out:
/// an `assertCompletes` inside a thread budget starts `lab.completes`, which the code under test
/// did not ask for.
///
/// A thread is enrolled by identity (`HostPlatform.currentThreadID`) while it runs, and leaves
/// when its body ends: Linux gives a dead thread's id to a new one once the pid counter wraps
/// (pid_max was 32768 on the machine this was written on), so an id must not stay excluded after
/// its thread is gone. Each open watch (`NewThreadWatch`) also keeps every id enrolled while it
/// was open, so that an instrument that started and ended between two of its listings, or was
/// listed before it had enrolled, is still known for what it was.
enum InstrumentThreads {
    private struct State {
        var live: Set<UInt64> = []
        var watches: [Int: Set<UInt64>] = [:]
        var nextWatch = 0
    }

    private static let state = Mutex(State())

    /// Runs `body` on the calling thread as an instrument of the harness.
    static func run(_ body: () -> Void) {
        let id = HostPlatform.currentThreadID()
        state.withLock { s in
            s.live.insert(id)
            for key in s.watches.keys { s.watches[key]?.insert(id) }
        }
        defer { _ = state.withLock { $0.live.remove(id) } }
        body()
    }

    /// Opens a watch: from now until `close`, `enrolled(in:)` holds every instrument that ran
    /// meanwhile, and those running now.
    static func open() -> Int {
        state.withLock { s in
            s.nextWatch += 1
            s.watches[s.nextWatch] = s.live
            return s.nextWatch
        }
    }

    /// The instruments that ran while watch `key` was open.
    static func enrolled(in key: Int) -> Set<UInt64> {
        state.withLock { $0.watches[key] ?? [] }
    }

    /// Closes watch `key`; returns what `enrolled(in:)` last held.
    @discardableResult
    static func close(_ key: Int) -> Set<UInt64> {
        state.withLock { $0.watches.removeValue(forKey: key) ?? [] }
    }
}

extension NamedThread {
    /// `start(_:stackSize:_:)` for a thread of the harness's own (`InstrumentThreads`).
    @discardableResult
    static func startInstrument(
        _ name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void
    ) -> Thread {
        start(name, stackSize: stackSize) { InstrumentThreads.run(body) }
    }

    /// `startInstrument`, and whether the thread was created: false when `pthread_create` refused
    /// it (a thread limit), which Foundation's `Thread.start` does not report. Read from the
    /// shim's count of refused creations around the call, which `Thread.start` makes at once; a
    /// refusal on another thread at that instant reads as this one's (a thread limit either way).
    static func startInstrumentReporting(
        _ name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void
    ) -> Bool {
        let refusedBefore = clab_thread_create_failures()
        startInstrument(name, stackSize: stackSize, body)
        return refusedBefore < 0 || clab_thread_create_failures() == refusedBefore
    }

    /// `startAndAwait(_:stackSize:budget:_:)` for a thread of the harness's own.
    static func startInstrumentAndAwait(
        _ name: String, stackSize: Int? = nil, budget: Seconds = startBudget,
        _ body: @escaping @Sendable (_ start: Start) -> Void
    ) -> Bool {
        startAndAwait(name, stackSize: stackSize, budget: budget) { start in InstrumentThreads.run { body(start) } }
    }
}
