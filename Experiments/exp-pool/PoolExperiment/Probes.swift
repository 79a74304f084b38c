import Dispatch
import LabHarness
import Synchronization

/// Probes: tiny blocks submitted to the global queue, timed from submission to the moment they
/// start. That wait is what a user feels when unrelated work (a thumbnail, a parse) is queued
/// behind a flood.
///
/// Each probe has a twin, the *control*, submitted right after it to a pool the work never
/// touches (the utility-priority global queue, a separate pool in libdispatch). The control
/// measures the machine itself at that moment: on a shared, loaded 2-core machine a whole
/// process can stall for 90 ms to several seconds (measured), and a stall delays probe and
/// control alike. A probe's *excess* over its control is what the pool, not the machine, cost it.
final class ProbeLog: Sendable {
    private struct Probe {
        var submitted: Seconds
        var started: Seconds?
        var controlSubmitted: Seconds
        var controlStarted: Seconds?
    }

    static let controlQueue = DispatchQueue.global(qos: .utility)

    private let probes = Mutex<[Probe]>([])
    private let origin: Seconds

    init(origin: Seconds) {
        self.origin = origin
    }

    /// Submits one probe to the default-priority global queue, then its control.
    func submit() {
        let submitted = MonotonicClock.now()
        let index = probes.withLock { list -> Int in
            list.append(Probe(submitted: submitted, controlSubmitted: submitted))
            return list.count - 1
        }
        DispatchQueue.global().async { [self] in
            let now = MonotonicClock.now()
            probes.withLock { $0[index].started = now }
        }
        let controlSubmitted = MonotonicClock.now()
        probes.withLock { $0[index].controlSubmitted = controlSubmitted }
        ProbeLog.controlQueue.async { [self] in
            let now = MonotonicClock.now()
            probes.withLock { $0[index].controlStarted = now }
        }
    }

    var waiting: Int { probes.withLock { $0.filter { $0.started == nil }.count } }

    /// What the probes measured, at `end`. A probe still waiting then counts with the time it
    /// had waited so far: a lower bound, which keeps "at least 10 x" claims conservative.
    struct Waits {
        var probe: [Seconds]
        var control: [Seconds]
        /// Per probe: its wait minus its control's, at least 0.
        var excess: [Seconds]
        var unstarted: Int
    }

    func waits(at end: Seconds) -> Waits {
        let list = probes.withLock { $0 }
        let probe = list.map { ($0.started ?? end) - $0.submitted }
        let control = list.map { ($0.controlStarted ?? end) - $0.controlSubmitted }
        return Waits(probe: probe, control: control, excess: zip(probe, control).map { max(0, $0 - $1) },
                     unstarted: list.filter { $0.started == nil }.count)
    }

    /// `probe_ms`: `[[t_s, wait_ms], ...]` of the probes that started, by submission time from
    /// the work's start; `probe_unstarted_ms`: the lower bounds of those that had not;
    /// `control_ms`: the controls.
    func series(at end: Seconds) -> [String: [[Double]]] {
        let list = probes.withLock { $0 }
        var started: [[Double]] = [], unstarted: [[Double]] = [], control: [[Double]] = []
        for p in list {
            let t = p.submitted - origin
            if let s = p.started { started.append([t, (s - p.submitted) * 1000]) }
            else { unstarted.append([t, (end - p.submitted) * 1000]) }
            if let c = p.controlStarted { control.append([t, (c - p.controlSubmitted) * 1000]) }
        }
        var series = [SeriesKey.probeWait: started, "control_ms": control]
        if !unstarted.isEmpty { series["probe_unstarted_ms"] = unstarted }
        return series
    }
}

/// The baseline: the same probe on the idle pool, one at a time, before the work starts.
enum IdleBaseline {
    /// Waits of `count` probes, each submitted after the previous one ran and `spacing` passed
    /// (the worker parks again within microseconds). A warm-up probe goes first, to each pool,
    /// and is not counted: on a fresh process it creates the pools' first workers, which then
    /// stay (an idle worker lingers 5 s), so the work's thread counts start from a warm pool.
    ///
    /// Each wait comes with its *net* value: minus what a control thread (`StallWatch`) was
    /// held up by the machine over the same interval. The baseline is the denominator of
    /// "10 x the idle latency" and of the gate's limit, so one stall of the whole process
    /// during these 200 ms must not become the idle pool's p99.
    static func measure(count: Int, spacing: Seconds) -> (waits: [Seconds], net: [Seconds]) {
        _ = probeOnce(DispatchQueue.global())
        _ = probeOnce(ProbeLog.controlQueue)
        let control = StallWatch()
        var intervals: [(submitted: Seconds, wait: Seconds)] = []
        for _ in 0..<count {
            let submitted = MonotonicClock.now()
            intervals.append((submitted, probeOnce(DispatchQueue.global())))
            MonotonicClock.sleep(for: spacing)
        }
        control.stop()
        let net = intervals.map { max(0, $0.wait - control.delay(from: $0.submitted, to: $0.submitted + $0.wait)) }
        return (intervals.map(\.wait), net)
    }

    /// One probe's wait; a probe that has not started after a second counts as at least that.
    private static func probeOnce(_ queue: DispatchQueue) -> Seconds {
        let done = DispatchSemaphore(value: 0)
        let startedAt = Mutex<Seconds?>(nil)
        let submitted = MonotonicClock.now()
        queue.async {
            startedAt.withLock { $0 = MonotonicClock.now() }
            done.signal()
        }
        _ = done.wait(timeout: .now() + .seconds(1))
        return (startedAt.withLock { $0 } ?? MonotonicClock.now()) - submitted
    }
}

/// The line between "responsive" and "starved".
///
/// The claim's test is "probe p99 within 2 x the idle p99". Idle probes take tens of
/// microseconds, and on a loaded 2-core machine one scheduler hiccup moves that by
/// milliseconds, so a ratio of two tiny numbers says nothing on its own. The rule here: the
/// p99 of each probe's excess over its same-moment control (which cancels stalls of the whole
/// machine) must stay within 2 x the idle p99 (itself net of machine stalls, see
/// `IdleBaseline`) or under 100 ms, the classic limit below which a
/// response feels instant, whichever is larger. A flood makes probes wait seconds; the floor
/// does not blur that.
enum Responsiveness {
    static let floorMs = 100.0

    static func limitMs(idleP99Ms: Double) -> Double { max(2 * idleP99Ms, floorMs) }

    static func isResponsive(excessP99Ms: Double, idleP99Ms: Double) -> Bool {
        excessP99Ms <= limitMs(idleP99Ms: idleP99Ms)
    }
}
