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
    /// The threads each caller started and woke on (kernel ids, 0 unknown), so they are not
    /// counted as the design's. Columns rather than a shared set: no lock on the callers' path.
    private let startThread: UnsafeMutableBufferPointer<Int>
    private let wakeThread: UnsafeMutableBufferPointer<Int>

    init(count: Int) {
        self.count = count
        func column() -> UnsafeMutableBufferPointer<Double> {
            let b = UnsafeMutableBufferPointer<Double>.allocate(capacity: count)
            b.initialize(repeating: .nan)
            return b
        }
        started = column(); fired = column(); woke = column()
        startThread = .allocate(capacity: count)
        startThread.initialize(repeating: 0)
        wakeThread = .allocate(capacity: count)
        wakeThread.initialize(repeating: 0)
    }

    deinit {
        started.deallocate(); fired.deallocate(); woke.deallocate()
        startThread.deallocate(); wakeThread.deallocate()
    }

    func markStarted(_ i: Int, at t: Seconds) {
        started[i] = t
        startThread[i] = KernelThreadID.current() ?? 0
    }

    func markDone(_ i: Int, outcome: RaceOutcome) {
        woke[i] = MonotonicClock.now()
        if case .timedOut(let at) = outcome { fired[i] = at }
        wakeThread[i] = KernelThreadID.current() ?? 0
        done.wrappingAdd(1, ordering: .releasing)
    }

    var finished: Int { done.load(ordering: .acquiring) }

    var callerThreadIDs: Set<Int> {
        _ = finished
        return Set(startThread).union(wakeThread).subtracting([0])
    }

    /// Reads after `finished` reached `count` (or the trial gave up: unfinished entries are NaN).

    var startedTimes: [Double] { _ = finished; return Array(started) }
    var firedTimes: [Double] { _ = finished; return Array(fired) }
    var wokeTimes: [Double] { _ = finished; return Array(woke) }
}
