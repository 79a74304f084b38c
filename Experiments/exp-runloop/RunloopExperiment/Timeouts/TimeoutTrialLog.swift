import LabHarness
import Synchronization

/// Every request's instants in one trial, written without a lock: request `i` is written only
/// by its own caller task, and read only after that task counted itself done (the counter's
/// release/acquire orders the writes before the read).
final class TimeoutTrialLog: @unchecked Sendable {   // unchecked: disjoint writes per index, see above
    let count: Int
    private let started: UnsafeMutableBufferPointer<Double>
    private let fired: UnsafeMutableBufferPointer<Double>
    private let woke: UnsafeMutableBufferPointer<Double>
    private let done = Atomic<Int>(0)
    /// Threads callers ran on (kernel ids), so they are not counted as the design's.
    private let callerThreads = Mutex(Set<Int>())

    init(count: Int) {
        self.count = count
        func column() -> UnsafeMutableBufferPointer<Double> {
            let b = UnsafeMutableBufferPointer<Double>.allocate(capacity: count)
            b.initialize(repeating: .nan)
            return b
        }
        started = column(); fired = column(); woke = column()
    }

    deinit {
        started.deallocate(); fired.deallocate(); woke.deallocate()
    }

    func markStarted(_ i: Int, at t: Seconds) { started[i] = t; noteCallerThread() }

    func markDone(_ i: Int, outcome: RaceOutcome) {
        woke[i] = MonotonicClock.now()
        if case .timedOut(let at) = outcome { fired[i] = at }
        noteCallerThread()
        done.wrappingAdd(1, ordering: .releasing)
    }

    var finished: Int { done.load(ordering: .acquiring) }

    private func noteCallerThread() {
        guard let tid = KernelThreadID.current() else { return }
        callerThreads.withLock { _ = $0.insert(tid) }
    }

    var callerThreadIDs: Set<Int> { callerThreads.withLock { $0 } }

    /// Reads after `finished` reached `count` (or the trial gave up: unfinished entries are NaN).

    var startedTimes: [Double] { _ = finished; return Array(started) }
    var firedTimes: [Double] { _ = finished; return Array(fired) }
    var wokeTimes: [Double] { _ = finished; return Array(woke) }
}
