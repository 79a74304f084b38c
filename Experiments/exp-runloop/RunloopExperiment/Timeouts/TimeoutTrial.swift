import Foundation
import LabHarness
import Synchronization

/// The metrics of a timeout design's trial, by the names they travel under (JSON contract).
public enum TimeoutMetric {
    /// Requests issued, woken by their timeout, done (woken or completed first), completed
    /// first (their timeout never fired), woken before their deadline.
    public static let total: MetricKey = "total", fired: MetricKey = "fired", completed: MetricKey = "completed"
    public static let completedFirst: MetricKey = "completed_first", early: MetricKey = "early"
    /// Fire time − deadline of the requests that timed out, in ms; `excess`: less what the
    /// same-moment control was held up over the same span (the design's own part).
    public static let latenessP50: MetricKey = "lateness.p50_ms", latenessP99: MetricKey = "lateness.p99_ms", latenessMax: MetricKey = "lateness.max_ms"
    public static let excessP50: MetricKey = "lateness.excess.p50_ms", excessP99: MetricKey = "lateness.excess.p99_ms", excessMax: MetricKey = "lateness.excess.max_ms"
    /// First request issued to last woken (over the timeout, in seconds, and what the control
    /// was held up in it); first issued to last armed; last deadline to last woken.
    public static let wallPerTimeout: MetricKey = "wall_per_timeout", wall: MetricKey = "wall_s", wallControlDelay: MetricKey = "wall.control_delay_s"
    public static let issue: MetricKey = "issue_s", drain: MetricKey = "drain_s"
    /// Threads that appeared while the design ran and never ran a caller; 1 when the design's
    /// own thread got real-time priority, 0 when refused (absent: no thread of its own).
    public static let threadsAdded: MetricKey = "threads.added", threadsRealtime: MetricKey = "threads.realtime"
    /// How many times the design set a timer (`TimeoutDesign.timersArmed`), when it counts them.
    public static let timersArmed: MetricKey = "timers.armed"
    /// Peak resident memory of the whole process, in MB; process CPU from start to last woken.
    public static let memoryPeak: MetricKey = "memory.peak_mb", cpu: MetricKey = "cpu_s"
}

/// The measurement every timeout design shares: issue `requests` async requests, each racing
/// its `timeout`, and measure how late the timeouts fired and what keeping them cost.
///
/// Callers are detached tasks issued one after another from the calling thread, as `--caller
/// async` does: none blocks a thread while it waits. Each takes its deadline when it starts, so
/// issuing does not count as lateness.
///
/// Threads: those a `NewThreadWatch` saw appear from just before the design started, less every
/// thread a caller ran on, are the design's own. The runtime starts threads for the first
/// detached tasks that never run a caller, so a few tasks run first and their threads are part
/// of "before". Memory is the process's peak, meaningful in a process of its own (a point).
public enum TimeoutTrial {
    /// What one trial measured: `finished` is false if the budget ran out first; `started`
    /// counts the callers that took their deadline and raced; `addedThreadNames` names the
    /// threads in `threads.added`; per request, the monotonic instants it was due and woken by
    /// its timeout (NaN: never started, or did not time out).
    public struct Result: Sendable {
        public var metrics: Metrics
        public var finished: Bool, started: Int
        public var addedThreadNames: [String]
        public var deadlines: [Double], firedAt: [Double]
        public var issuedAt: Seconds
        public var threadPriority: RealtimePriority.Grant?
    }

    /// One request's instants and the threads its caller started and woke on (0: unknown).
    struct Slot { var started = Double.nan, fired = Double.nan, woke = Double.nan, startThread = 0, wakeThread = 0 }

    /// The callers' results: caller `i` writes slot `i` only, and the table is read after `done`
    /// counted it (release/acquire orders the writes before the reads), so no lock is on the
    /// callers' path (one there would be measured too, at 100,000 requests).
    private final class Slots: @unchecked Sendable {   // unchecked: disjoint writes per index, see above
        let slots: UnsafeMutableBufferPointer<Slot>, done = Atomic<Int>(0)
        init(_ count: Int) { slots = .allocate(capacity: count); slots.initialize(repeating: Slot()) }
        deinit { slots.deallocate() }
    }

    /// Runs one trial. `completeAfter(i)`: seconds after which request `i` completes by itself
    /// (`nil`: never, so it times out). `nil` if the design could not start.
    public static func run(_ design: TimeoutDesignName, requests: Int, timeout: Seconds,
                           completeAfter: @escaping @Sendable (Int) -> Seconds? = { _ in nil },
                           budget: Seconds) -> Result? {
        warmUpCallers()
        let watch = NewThreadWatch(interval: 0.1)
        watch.start()
        let cpuStart = CPUTime.process()
        guard let keeper = design.start() else { watch.stop(); return nil }
        let table = Slots(requests)
        let issueStart = MonotonicClock.now()
        for i in 0..<requests {
            let after = completeAfter(i)
            Task.detached {
                let started = MonotonicClock.now()
                table.slots[i].started = started
                table.slots[i].startThread = KernelThreadID.current() ?? 0
                let outcome = await keeper.race(deadline: started + timeout, request: request(completingAfter: after))
                table.slots[i].woke = MonotonicClock.now()
                if case .timedOut(let at) = outcome { table.slots[i].fired = at }
                table.slots[i].wakeThread = KernelThreadID.current() ?? 0
                table.done.wrappingAdd(1, ordering: .releasing)
            }
        }
        let limit = MonotonicClock.now() + budget
        while table.done.load(ordering: .acquiring) < requests, MonotonicClock.now() < limit { MonotonicClock.sleep(for: 0.005) }
        let appeared = watch.stop()
        let cpu = CPUTime.process() - cpuStart
        let finished = table.done.load(ordering: .acquiring) == requests
        let priority = keeper.threadPriority, armed = keeper.timersArmed
        keeper.stop()
        let slots = Array(table.slots)

        var m = Metrics()
        let timedOut = slots.filter { !$0.woke.isNaN && !$0.fired.isNaN }
        let lateness = timedOut.map { $0.fired - ($0.started + timeout) }
        m[TimeoutMetric.total] = Double(requests)
        m[TimeoutMetric.fired] = Double(timedOut.count)
        m[TimeoutMetric.completed] = Double(slots.filter { !$0.woke.isNaN }.count)
        m[TimeoutMetric.completedFirst] = Double(slots.filter { !$0.woke.isNaN && $0.fired.isNaN }.count)
        m[TimeoutMetric.early] = Double(lateness.filter { $0 < 0 }.count)
        m[TimeoutMetric.cpu] = cpu
        m[TimeoutMetric.timersArmed] = armed.map(Double.init)
        let callers = Set(slots.flatMap { [$0.startThread, $0.wakeThread] }).subtracting([0])
        let added = appeared.filter { !callers.contains(Int($0.id)) }.sorted { $0.id < $1.id }
        m[TimeoutMetric.threadsAdded] = Double(added.count)
        percentiles(lateness, into: &m, TimeoutMetric.latenessP50, TimeoutMetric.latenessP99, TimeoutMetric.latenessMax)
        let lastStart = slots.map(\.started).filter { !$0.isNaN }.max() ?? issueStart
        m[TimeoutMetric.issue] = lastStart - issueStart
        if finished, let lastWake = slots.map(\.woke).max() {
            m[TimeoutMetric.wallPerTimeout] = (lastWake - issueStart) / timeout
            m[TimeoutMetric.wall] = lastWake - issueStart
            m[TimeoutMetric.drain] = max(0, lastWake - (lastStart + timeout))
        }
        m[TimeoutMetric.memoryPeak] = ProcessMemory.peakResidentMB()
        if let priority { m[TimeoutMetric.threadsRealtime] = priority.isGranted ? 1 : 0 }
        return Result(metrics: m, finished: finished, started: slots.filter { !$0.started.isNaN }.count,
                      addedThreadNames: added.map { $0.name.isEmpty ? "?" : $0.name },
                      deadlines: slots.map { $0.started + timeout }, firedAt: slots.map(\.fired), issuedAt: issueStart,
                      threadPriority: priority)
    }

    /// p50, p99 and max of `seconds`, in ms.
    private static func percentiles(_ seconds: [Double], into m: inout Metrics, _ p50: MetricKey, _ p99: MetricKey, _ max: MetricKey) {
        guard let summary = LatencySummary(seconds) else { return }
        (m[p50], m[p99], m[max]) = (summary.p50 * 1000, summary.p99 * 1000, summary.max * 1000)
    }

    /// A stand-in request that completes after `delay` seconds, or `nil` for one that never does.
    private static func request(completingAfter delay: Seconds?) -> (@Sendable () async -> Void)? {
        guard let delay else { return nil }
        return { try? await Task.sleep(for: .nanoseconds(Int64(delay * 1e9))) }
    }

    /// Runs a few detached tasks to completion, so the threads the concurrency runtime starts
    /// for any caller exist before the design starts (waits 5 s at most).
    private static func warmUpCallers() {
        let done = DispatchSemaphore(value: 0)
        let tasks = 2 * ProcessInfo.processInfo.activeProcessorCount
        for _ in 0..<tasks { Task.detached { await Task.yield(); done.signal() } }
        for _ in 0..<tasks { _ = done.wait(timeout: .now() + 5) }
        MonotonicClock.sleep(for: 0.02)
    }

    /// A design variant's body (and a sweep point's): `--tasks` requests racing `--timeout`,
    /// lateness also net of the harness's same-moment control, outcome and evidence. The
    /// mechanism: every request's caller started and raced, and the design counted its timers.
    static func run(_ context: VariantContext, design: TimeoutDesignName) throws -> VariantRecord {
        let p = context.parameters(RunloopParameters.self)
        guard let result = run(design, requests: p.tasks, timeout: p.timeout, budget: ScaleParameters.trialBudget(p)) else {
            throw SetupError("\(design.rawValue) could not start (no run-loop thread)")
        }
        context.progress.advance()
        var m = result.metrics
        m[TimeoutMetric.wallControlDelay] = m[TimeoutMetric.wall].map { context.machineDelay(from: result.issuedAt, to: result.issuedAt + $0) }
        let excess = zip(result.deadlines, result.firedAt).filter { !$0.1.isNaN && !$0.0.isNaN }
            .map { due, fired in fired - due - context.machineDelay(from: due, to: fired) }
        percentiles(excess, into: &m, TimeoutMetric.excessP50, TimeoutMetric.excessP99, TimeoutMetric.excessMax)
        let total = m[TimeoutMetric.total] ?? 0, early = m[TimeoutMetric.early] ?? 0, n = Format.count
        let added = result.addedThreadNames
        let threads = added.isEmpty ? "no thread of its own" : "\(added.count) thread\(added.count == 1 ? "" : "s") (\(added.joined(separator: ", ")))"
        let (outcome, what): (Outcome, String) = !result.finished
            ? (.timedOut, "\(n(m[TimeoutMetric.completed] ?? 0)) of \(n(total)) requests woken when the trial's budget ran out")
            : early > 0 ? (.firesEarly, "\(n(early)) of \(n(total)) requests woken before their deadline")
            : (.completed, "\(n(m[TimeoutMetric.fired] ?? 0)) of \(n(total)) requests woken by their \(Format.seconds(p.timeout)) timeout, p99 \(Format.milliseconds(m[TimeoutMetric.latenessP99] ?? .nan)) late")
        var evidence = what + "; issuing took \(Format.seconds(m[TimeoutMetric.issue] ?? .nan)), the design added \(threads)"
        if let priority = result.threadPriority { evidence += "; its thread ran at \(priority)" }
        let timers = m[TimeoutMetric.timersArmed].map { ", \(n($0)) timer settings" } ?? ""
        let mechanism = Evidence.when(result.started == p.tasks, "\(n(Double(result.started))) of \(n(total)) callers started and raced their timeout\(timers)",
                                      otherwise: "only \(n(Double(result.started))) of \(n(total)) callers started")
        return VariantRecord(outcome: outcome, metrics: m, evidence: evidence, mechanism: mechanism)
    }
}
