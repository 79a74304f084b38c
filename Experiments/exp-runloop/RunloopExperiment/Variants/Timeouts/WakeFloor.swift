import LabHarness
import Synchronization

/// The floor under every timeout design's lateness: a thread beside the trial that does nothing
/// but sleep until an instant and note how late it woke, every `interval`.
///
/// No user-space design wakes a request sooner than the scheduler wakes a thread. This one runs
/// at the priority class of the design's own thread (real-time when that thread asked for it and
/// was granted it, normal otherwise), on the same machine, at the same moment, so the callers
/// whose resumptions keep two cores busy hold it up as they hold up the design. Its p99 over the
/// window in which the requests fall due is the floor; what a design's p99 lies above it is what
/// the design itself adds.
///
/// It differs from the `StallWatch` control the trial also has: that one keeps only wake-ups
/// more than a millisecond late and subtracts stalls from each request; this one keeps every
/// wake-up, so its percentiles can be set beside the requests'.
final class WakeFloor: Sendable {
    /// How often the thread asks to wake: often enough for a few dozen samples in the 20-40 ms
    /// in which 10,000 requests issued from one thread fall due, rarely enough (2,000 wake-ups
    /// a second, a few microseconds each) to cost the trial under 1 % of a core.
    static let interval: Seconds = 0.0005

    /// One wake-up: due at `due`, `late` seconds after it.
    struct Sample: Sendable { var due: Seconds, late: Seconds }

    private let samples = Mutex<[Sample]>([])
    private let running = Atomic<Bool>(true)
    private let grant = Mutex<RealtimePriority.Grant?>(nil)
    private let finished = Atomic<Bool>(false)

    /// Starts the thread; with `realtime` it first asks for the priority a design's run-loop
    /// thread asks for (`RealtimePriority.requestedPriority`), so it is ranked as that thread is.
    /// `nil` if the thread did not start within its budget.
    static func start(realtime: Bool) -> WakeFloor? {
        let floor = WakeFloor()
        let started = NamedThread.startAndAwait("rl.wake-floor") { start in
            if realtime { floor.grant.withLock { $0 = RealtimePriority.requestForCurrentThread() } }
            guard start.signalReady() else { return }
            floor.run()
        }
        return started ? floor : nil
    }

    private func run() {
        var due = MonotonicClock.now()
        var kept: [Sample] = []
        kept.reserveCapacity(8192)
        while running.load(ordering: .relaxed) {
            due += WakeFloor.interval
            MonotonicClock.sleep(until: due)
            let woke = MonotonicClock.now()
            kept.append(Sample(due: due, late: woke - due))
            // After a long hold-up, aim at the next tick from now rather than a backlog of
            // ticks already missed, which would each report the same hold-up again.
            if woke - due > WakeFloor.interval { due = woke }
        }
        samples.withLock { $0 = kept }
        finished.store(true, ordering: .releasing)
    }

    /// What the scheduler answered when the thread asked for real-time priority (`nil`: it did
    /// not ask).
    var priority: RealtimePriority.Grant? { grant.withLock { $0 } }

    /// Stops the thread (waits at most a second for it) and returns every wake-up it had.
    func stop() -> [Sample] {
        running.store(false, ordering: .relaxed)
        let limit = MonotonicClock.now() + 1
        while !finished.load(ordering: .acquiring), MonotonicClock.now() < limit { MonotonicClock.sleep(for: 0.001) }
        return samples.withLock { $0 }
    }

    /// The lateness of the wake-ups due within `from...to`, in seconds.
    static func lateness(_ samples: [Sample], from: Seconds, to: Seconds) -> [Seconds] {
        samples.filter { $0.due >= from && $0.due <= to }.map(\.late)
    }
}
