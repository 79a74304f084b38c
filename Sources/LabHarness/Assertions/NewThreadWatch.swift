import Foundation
import Synchronization

/// Which threads appeared while a block ran: every thread seen during the watch whose identity
/// was not in the process when the watch began (see `ThreadRoster`), except the harness's own
/// (`InstrumentThreads`: an `assertCompletes` or a hang watch inside the block starts one).
///
/// A watcher thread lists the process's threads every `interval` seconds and once more when
/// the watch stops, so a thread that starts and ends between two listings is missed; the
/// count is a lower bound, exact for threads that live at least one interval. The watcher
/// itself exists before the baseline is taken, so it never counts.
public final class NewThreadWatch: Sendable {
    /// One thread that appeared, with the name it had when last seen.
    public struct Appeared: Sendable, Equatable {
        public var id: UInt64
        public var name: String
    }

    /// Threads whose name is read again at each listing (a thread is named after it starts,
    /// and on Linux starts with its creator's name); beyond that the first name seen is kept.
    static let renameLimit = 256

    private let interval: Seconds
    private let stacksAt: Int?
    private let stacks = Mutex<StackSnapshot?>(nil)
    private let state = Mutex<State>(State())
    private let stopping = Atomic<Bool>(false)
    /// Signalled by `stop()`: the watcher waits on it between listings instead of sleeping, so a
    /// stop does not wait out the rest of an interval (up to 100 ms, a timeout trial's).
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    private struct State {
        var baseline: Set<UInt64> = []
        var appeared: [UInt64: String] = [:]
        var order: [UInt64] = []
        /// The harness's threads seen while the watch was open (`InstrumentThreads`).
        var instruments: Set<UInt64> = []
    }

    /// This watch's key in `InstrumentThreads`: open from its making to `stop()` (or its end).
    private let instrumentsKey = InstrumentThreads.open()

    /// With `stacksAt`, the watcher takes the stacks of the new threads once, when that many
    /// have appeared (a budget's limit): where they wait, while they still exist.
    public init(interval: Seconds = 0.002, stacksAt: Int? = nil) {
        self.interval = interval
        self.stacksAt = stacksAt
    }

    deinit { InstrumentThreads.close(instrumentsKey) }

    /// The new threads' stacks, taken when `stacksAt` threads had appeared; `nil` before (or
    /// without `stacksAt`).
    var stacksAtLimit: StackSnapshot? { stacks.withLock { $0 } }

    /// `where they were when N had appeared:` and the new threads grouped by stack, or nothing
    /// when no stacks were taken.
    public func stacksText() -> String {
        guard let snapshot = stacksAtLimit, let limit = stacksAt else { return "" }
        return "; where the new threads were when \(limit) had appeared:" + HangStacks.block(snapshot)
    }

    /// Runs twice as many detached tasks as the cooperative pool is wide (`CPUBudget.poolWidth`)
    /// to completion, so the threads Swift's concurrency runtime starts on first use exist before
    /// a watch begins and are not counted as the watched code's. Waits 5 s at most.
    public static func warmUpConcurrencyPool() {
        let done = DispatchSemaphore(value: 0)
        let tasks = 2 * CPUBudget.current.poolWidth
        for _ in 0..<tasks {
            Task.detached {
                await Task.yield()
                done.signal()
            }
        }
        for _ in 0..<tasks { _ = done.wait(timeout: .now() + 5) }
        MonotonicClock.sleep(for: 0.02)
    }

    /// Starts the watcher thread and takes the baseline once it runs. Without a watcher thread
    /// (it did not start: `NamedThread.startAndAwait`), the baseline is taken here and only the
    /// listing at `stop()` counts.
    public func start() {
        let started = NamedThread.startInstrumentAndAwait("lab.threadwatch") { [self] start in
            let baseline = ThreadRoster.identities()
            guard start.signalReady(publishing: { state.withLock { $0.baseline = baseline } }) else { return }
            while !stopping.load(ordering: .acquiring) {
                look()
                takeStacksAtLimit()
                _ = wake.wait(timeout: WaitTimeLimit.fromNow(interval))
            }
            finished.signal()
        }
        if !started {
            stopping.store(true, ordering: .releasing)
            let baseline = ThreadRoster.identities()
            state.withLock { $0.baseline = baseline }
        }
    }

    /// Stops watching after one last listing; returns the threads that appeared, in the order
    /// they were first seen.
    ///
    /// The watcher thread is stopped first and the last listing taken after it: a listing the
    /// watcher had begun before the threads named themselves, and finished (descheduled on a
    /// loaded machine) after a concurrent last listing, would otherwise put the creator's name
    /// back on a thread that had already renamed itself (seen at load 15-50).
    @discardableResult
    public func stop() -> [Appeared] {
        if !stopping.exchange(true, ordering: .acquiringAndReleasing) {
            wake.signal()
            _ = finished.wait(timeout: .now() + .seconds(5))
        }
        look()
        let instruments = InstrumentThreads.close(instrumentsKey)
        state.withLock { $0.instruments.formUnion(instruments) }
        return appeared
    }

    /// The threads seen so far that were not there at the start, the harness's own left out.
    public var appeared: [Appeared] {
        state.withLock { s in
            s.order.filter { !s.instruments.contains($0) }.map { Appeared(id: $0, name: s.appeared[$0] ?? "") }
        }
    }

    /// Once, on the watcher's thread: the stacks of the threads that appeared, when there are
    /// `stacksAt` of them (what a thread budget's failure shows of where they wait; their names
    /// on Linux are often the 15 bytes they inherited from their creator).
    private func takeStacksAtLimit() {
        guard let limit = stacksAt, stacks.withLock({ $0 == nil }) else { return }
        let ids = Set(appeared.map(\.id))
        guard ids.count >= limit else { return }
        var snapshot = HangStacks.ofThisProcess(namingBudget: StackCapture.symbolBudget)
        if !snapshot.threads.isEmpty { snapshot.threads = snapshot.threads.filter { ids.contains(UInt64($0.tid)) } }
        stacks.withLock { $0 = snapshot }
    }

    private func look() {
        let now = ThreadRoster.identities()
        let instruments = InstrumentThreads.enrolled(in: instrumentsKey)
        state.withLock { $0.instruments.formUnion(instruments) }
        let (baseline, known) = state.withLock { ($0.baseline, $0.appeared) }
        var updates: [UInt64: String] = [:]
        for id in now where !baseline.contains(id) {
            if known[id] == nil || known.count <= Self.renameLimit {
                let name = ThreadRoster.name(of: id)
                if !name.isEmpty || known[id] == nil { updates[id] = name }
            }
        }
        guard !updates.isEmpty else { return }
        state.withLock { s in
            for (id, name) in updates.sorted(by: { $0.key < $1.key }) {
                if s.appeared[id] == nil { s.order.append(id) }
                s.appeared[id] = name
            }
        }
    }

    /// `20 threads: 18 × lab.worker, 2 × (unnamed)`: how many of each name, most first.
    public static func summary(_ threads: [Appeared]) -> String {
        var counts: [String: Int] = [:]
        for thread in threads { counts[thread.name.isEmpty ? "(unnamed)" : thread.name, default: 0] += 1 }
        let parts = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .map { "\($0.value) × \($0.key)" }
        let noun = threads.count == 1 ? "thread" : "threads"
        return "\(threads.count) \(noun)" + (parts.isEmpty ? "" : ": " + parts.joined(separator: ", "))
    }
}
