import Dispatch
import LabHarness
import Synchronization

/// Start latency of tiny blocks on a dispatch queue, each paired with a *control* on a queue whose
/// threads the work under study cannot take (`newControl()`): what a user feels when unrelated
/// work waits behind a busy pool, with the machine's part measured beside it.
///
/// A probe is timed from submission to the moment it starts. Its control is submitted right
/// after it; a stall of the whole machine (90 ms to seconds on a loaded 2-core VM) delays both,
/// so a probe's *excess* over its control is what the queue, not the machine, cost it.
final class QueueProbes: Sendable {
    private struct Probe {
        var submitted: Seconds, started: Seconds?, controlSubmitted: Seconds, controlStarted: Seconds?
    }
    private let probes = Mutex<[Probe]>([])
    private let queue: DispatchQueue
    private let control: DispatchQueue

    /// Probes `queue`; controls run on `control`, by default `QueueProbes.newControl()`.
    init(_ queue: DispatchQueue, control: DispatchQueue = QueueProbes.newControl()) {
        self.queue = queue
        self.control = control
    }

    /// A control queue that no flood of the global queues can hold up: a private serial queue.
    /// Serial queues target an *overcommit* root queue ("Serial queues default to overcommit!",
    /// `dispatch_queue_create_with_target` in apple-oss-distributions/libdispatch 1542.0.4
    /// `src/queue.c:2870-2881`, and the same lines in swift-corelibs-libdispatch). An overcommit
    /// request is always admissible to Darwin's workqueue (xnu-11417.101.15
    /// `bsd/pthread/pthread_workqueue.c:4064-4078`, `workq_threadreq_admissible`); only
    /// non-overcommit ones meet `wq_max_constrained_threads`, checked against one count for the
    /// whole process, every QoS together (`workq_constrained_allowance`, same file, 3979-3999).
    /// So a global queue of another QoS, the old control, is held by a flood exactly as long as
    /// the probe, and the flood's excess came out 0. On Linux each root queue keeps a pthread
    /// pool of its own, the overcommit ones up to 255 threads (swift-corelibs-libdispatch
    /// `src/queue.c`, `_dispatch_root_queue_init_pthread_pool`): a thread for the control is
    /// woken or created at once, and a stall of the machine delays that as it delays the probe.
    static func newControl() -> DispatchQueue { DispatchQueue(label: "lab.pool.probe-control") }

    /// Submits one probe, then its control; returns at once.
    func submit() {
        let submitted = MonotonicClock.now()
        let index = probes.withLock { list -> Int in
            list.append(Probe(submitted: submitted, started: nil, controlSubmitted: submitted, controlStarted: nil))
            return list.count - 1
        }
        queue.async { [self] in
            let now = MonotonicClock.now(); probes.withLock { $0[index].started = now }
        }
        let controlSubmitted = MonotonicClock.now()
        probes.withLock { $0[index].controlSubmitted = controlSubmitted }
        control.async { [self] in
            let now = MonotonicClock.now(); probes.withLock { $0[index].controlStarted = now }
        }
    }

    /// Probes that have not started yet.
    var waiting: Int { probes.withLock { $0.filter { $0.started == nil }.count } }

    /// Waits as of `end`. A probe still waiting then counts with the time it had waited so far:
    /// a lower bound, which keeps "at least N x" claims conservative. `excess` is each probe's
    /// wait less the machine's part of it, at least 0: the larger of its control's wait and what
    /// `machineDelay(from, to)` (a same-moment control thread, `StallWatch.delay`) lost over the
    /// probe's own wait. On a loaded machine the control block and the probe wake on different
    /// threads, and one of them can be held up alone; a delay either control saw is the machine's.
    func waits(
        at end: Seconds, machineDelay: (Seconds, Seconds) -> Seconds = { _, _ in 0 }
    )
        -> (probe: [Seconds], control: [Seconds], excess: [Seconds], unstarted: Int)
    {
        let list = probes.withLock { $0 }
        let probe = list.map { ($0.started ?? end) - $0.submitted }
        let control = list.map { ($0.controlStarted ?? end) - $0.controlSubmitted }
        let machine = zip(list, control).map { p, c in max(c, machineDelay(p.submitted, p.started ?? end)) }
        return (probe, control, zip(probe, machine).map { max(0, $0 - $1) }, list.filter { $0.started == nil }.count)
    }

    /// Probes seen waiting behind other work: one of `otherStarts` (monotonic start times of
    /// work queued before the probes) fell after the probe's submission and before its start
    /// (or before `end`, for a probe that never started).
    func behind(_ otherStarts: [Seconds], at end: Seconds) -> Int {
        probes.withLock { $0 }.filter { p in
            otherStarts.contains { $0 > p.submitted && $0 < (p.started ?? end) }
        }.count
    }

    /// `probe_ms`: `[[t_s, wait_ms], ...]` of the probes that started, by submission time from
    /// `origin`; `probe_unstarted_ms`: the lower bounds of those that had not; `control_ms`.
    func series(origin: Seconds, at end: Seconds) -> [String: [[Double]]] {
        var started: [[Double]] = [], unstarted: [[Double]] = [], control: [[Double]] = []
        for p in probes.withLock({ $0 }) {
            let t = p.submitted - origin
            if let s = p.started {
                started.append([t, (s - p.submitted) * 1000])
            } else {
                unstarted.append([t, (end - p.submitted) * 1000])
            }
            if let c = p.controlStarted { control.append([t, (c - p.controlSubmitted) * 1000]) }
        }
        var series = [SeriesKey.probeWait: started, "control_ms": control]
        if !unstarted.isEmpty { series["probe_unstarted_ms"] = unstarted }
        return series
    }

    /// The idle baseline: `count` probes of `queue`, one at a time, each submitted `spacing`
    /// after the previous one ran. A warm-up probe goes first to `queue` and to `control` and is
    /// not counted: on a fresh process it creates the pools' first workers. Each wait comes
    /// with its *net* value, minus `machineDelay` over the same interval (a same-moment
    /// control's lateness), so one stall of the process cannot become the idle p99.
    static func idleBaseline(
        _ queue: DispatchQueue, control: DispatchQueue = QueueProbes.newControl(), count: Int,
        spacing: Seconds, machineDelay: (Seconds, Seconds) -> Seconds
    )
        -> (waits: [Seconds], net: [Seconds])
    {
        _ = probeOnce(queue)
        _ = probeOnce(control)
        var intervals: [(submitted: Seconds, wait: Seconds)] = []
        for _ in 0..<count {
            let submitted = MonotonicClock.now()
            intervals.append((submitted, probeOnce(queue)))
            MonotonicClock.sleep(for: spacing)
        }
        let net = intervals.map { max(0, $0.wait - machineDelay($0.submitted, $0.submitted + $0.wait)) }
        return (intervals.map(\.wait), net)
    }

    /// One probe's wait; a probe that has not started after a second counts as at least that.
    private static func probeOnce(_ queue: DispatchQueue) -> Seconds {
        let done = DispatchSemaphore(value: 0), startedAt = Mutex<Seconds?>(nil), submitted = MonotonicClock.now()
        queue.async {
            startedAt.withLock { $0 = MonotonicClock.now() }; done.signal()
        }
        _ = done.wait(timeout: .now() + .seconds(1))
        return (startedAt.withLock { $0 } ?? MonotonicClock.now()) - submitted
    }
}
