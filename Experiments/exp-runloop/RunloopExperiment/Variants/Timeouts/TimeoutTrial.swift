import Foundation
import LabHarness

/// The measurement every timeout design shares: issue `requests` async requests, each racing
/// its `timeout`, and measure how late the timeouts fired and what keeping them cost.
///
/// Callers are detached tasks issued one after another from the calling thread, as `--caller
/// async` does: none blocks a thread while it waits. A request's timeout counts from the instant
/// it was issued, as a program's timeout counts from when it asks, so the requests of a trial
/// fall due as close together as they were issued, however late a loaded machine lets their
/// callers start: a caller that starts late only arms its timeout later. One that starts after
/// its deadline did not race it, and the trial's mechanism (every caller raced) is not seen.
///
/// Threads: those a `NewThreadWatch` saw appear once the design started, less every thread a
/// caller ran on, are the design's own (a few tasks run first, so the runtime's threads for
/// them exist before). Memory is the process's peak, meaningful in a process of its own.
public enum TimeoutTrial {
    /// What one trial measured: `finished`: before the budget ran out; `started`: callers that
    /// started before their deadline and raced it; the threads in `threads.added`; per request,
    /// the instants it was due, its caller started (NaN: never) and it was woken by its timeout
    /// (NaN: never started, or did not time out).
    public struct Result: Sendable {
        public var metrics: Metrics, finished: Bool, started: Int, addedThreadNames: [String]
        public var deadlines: [Double], startedAt: [Double], firedAt: [Double], issuedAt: TimeInterval,
            threadPriority: (granted: Bool, text: String)?
    }

    /// One request's instants and the threads its caller started and woke on (0: unknown).
    struct Slot: Sendable {
        var due: TimeInterval, started: TimeInterval? = nil, fired: TimeInterval? = nil, woke: TimeInterval? = nil
        var startThread = 0, wakeThread = 0
    }

    /// Runs one trial. `completeAfter(i)`: seconds after which request `i` completes by itself
    /// (`nil`: never, so it times out). `nil` if the design could not start.
    public static func run(
        _ design: TimeoutDesignName, requests: Int, timeout: TimeInterval,
        completeAfter: @escaping @Sendable (Int) -> TimeInterval? = { _ in nil },
        budget: TimeInterval
    ) -> Result? {
        NewThreadWatch.warmUpConcurrencyPool()
        // The floor asks for the priority the design's own thread asks for (see `WakeFloor`).
        // It starts before the thread watch, so its thread is not counted as the design's.
        let floor = WakeFloor.start(realtime: design.runsOnRealtimeThread)
        let watch = NewThreadWatch(interval: 0.1), cpuStart = CPUTime.process()
        watch.start()
        guard let keeper = design.start() else { watch.stop(); floor.stop(); return nil }
        // Two locked writes per request, each after the instant it records (a timer's fire
        // instant is the design's own).
        let table = StepTable(count: requests, row: Slot(due: .nan)), done = ProgressCounter()
        let issueStart = MonotonicClock.now()
        for i in 0..<requests {
            let after = completeAfter(i), due = MonotonicClock.now() + timeout
            Task.detached {
                let started = MonotonicClock.now()
                table.update(i) {
                    ($0.due, $0.started, $0.startThread) = (due, started, KernelThreadID.current() ?? 0)
                }
                let outcome = await keeper.race(deadline: due, request: request(completingAfter: after))
                let woke = MonotonicClock.now(), thread = KernelThreadID.current() ?? 0
                table.update(i) { slot in
                    (slot.woke, slot.wakeThread) = (woke, thread)
                    if case .timedOut(let at) = outcome { slot.fired = at }
                }
                done.advance()
            }
        }
        let limit = MonotonicClock.now() + budget
        while done.value < requests, MonotonicClock.now() < limit { MonotonicClock.sleep(for: 0.005) }
        let appeared = watch.stop(), finished = done.value == requests
        let cpu = CPUTime.process() - cpuStart
        floor.stop()
        let priority = keeper.threadPriority, armed = keeper.timersArmed
        keeper.stop()
        let slots = table.snapshot()

        let lateness = slots.compactMap { s in s.woke == nil ? nil : s.fired.map { $0 - s.due } }
        let callers = Set(slots.flatMap { [$0.startThread, $0.wakeThread] }).subtracting([0])
        let added = appeared.filter { !callers.contains(Int($0.id)) }.sorted { $0.id < $1.id }
        let raced = slots.count { s in s.started.map { $0 < s.due } ?? false }
        var m = Metrics()
        m.set([
            RunloopMetric.callersStarted: Double(raced),
            RunloopMetric.total: Double(requests), RunloopMetric.fired: Double(lateness.count),
            RunloopMetric.completed: Double(slots.count { $0.woke != nil }),
            RunloopMetric.completedFirst: Double(slots.count { $0.woke != nil && $0.fired == nil }),
            RunloopMetric.early: Double(lateness.count { $0 < 0 }), RunloopMetric.cpuS: cpu,
            RunloopMetric.timersArmed: armed.map(Double.init), RunloopMetric.threadsAdded: Double(added.count),
        ])
        m.summarize(
            lateness, scale: 1000, p50: RunloopMetric.latenessP50Ms, p99: RunloopMetric.latenessP99Ms,
            max: RunloopMetric.latenessMaxMs)
        let lastStart = slots.compactMap(\.started).max() ?? issueStart
        m[RunloopMetric.issueS] = lastStart - issueStart
        // The deadlines of the callers that started (a caller records its deadline as it starts).
        let due = slots.filter { $0.started != nil }.map(\.due), fired = slots.compactMap(\.fired)
        if finished, let lastWake = slots.compactMap(\.woke).max() {
            m[RunloopMetric.wallPerTimeout] = (lastWake - issueStart) / timeout
            m[RunloopMetric.wallS] = lastWake - issueStart
            m[RunloopMetric.drainS] = max(0, lastWake - (due.max() ?? lastWake))
        }
        m[RunloopMetric.memoryPeakMB] = ProcessMemory.peakResidentMB()
        // The floor over the window in which the requests fell due: first deadline to last firing.
        if let first = due.min(), let last = fired.max() {
            let floorLate = floor.lateness(dueFrom: first, to: last)
            m[RunloopMetric.floorSamples] = Double(floorLate.count)
            m.summarize(floorLate, scale: 1000, p50: RunloopMetric.floorP50Ms, p99: RunloopMetric.floorP99Ms, max: nil)
            if let p99 = m[RunloopMetric.latenessP99Ms], let floorP99 = m[RunloopMetric.floorP99Ms] {
                m[RunloopMetric.latenessNetP99Ms] = max(0, p99 - floorP99)
            }
        }
        if let priority { m[RunloopMetric.threadsRealtime] = priority.granted ? 1 : 0 }
        return Result(
            metrics: m, finished: finished, started: raced,
            addedThreadNames: added.map { $0.name.isEmpty ? "?" : $0.name },
            deadlines: slots.map(\.due), startedAt: slots.map { $0.started ?? .nan },
            firedAt: slots.map { $0.fired ?? .nan },
            issuedAt: issueStart, threadPriority: priority)
    }

    /// "(a thread that only wakes: p99 3.9 ms late, so 0.7 ms above that floor)", or nothing
    /// when the floor was not measured.
    static func floorClause(_ m: Metrics) -> String {
        guard let floor = m[RunloopMetric.floorP99Ms], let net = m[RunloopMetric.latenessNetP99Ms] else { return "" }
        return
            " (a thread that only wakes, beside it: p99 \(Format.milliseconds(floor)) late, so \(Format.milliseconds(net)) above that floor)"
    }

    /// A stand-in request that completes after `delay` seconds, or `nil` for one that never does.
    private static func request(completingAfter delay: TimeInterval?) -> (@Sendable () async -> Void)? {
        guard let delay else { return nil }
        return { try? await Task.sleep(for: .nanoseconds(Int64(delay * 1e9))) }
    }

    /// A design variant's body (and a sweep point's): `--tasks` requests racing `--timeout`,
    /// lateness also net of the harness's same-moment control, outcome and evidence. The
    /// mechanism: every request's caller started and raced, and the design counted its timers.
    static func run(_ context: VariantContext, design: TimeoutDesignName) -> VariantRecord {
        let p = context.parameters(RunloopParameters.self)
        guard let result = run(design, requests: p.tasks, timeout: p.timeout, budget: p.designBudget) else {
            return VariantRecord(outcome: .failed, evidence: "\(design.rawValue) could not start (no run-loop thread)")
        }
        context.progress.advance()
        var m = result.metrics
        m[RunloopMetric.wallControlDelayS] = m[RunloopMetric.wallS].map {
            context.machineDelay(from: result.issuedAt, to: result.issuedAt + $0)
        }
        let excess = zip(result.deadlines, result.firedAt).filter { !$0.1.isNaN && !$0.0.isNaN }
            .map { due, fired in fired - due - context.machineDelay(from: due, to: fired) }
        m.summarize(
            excess, scale: 1000, p50: RunloopMetric.latenessExcessP50Ms, p99: RunloopMetric.latenessExcessP99Ms,
            max: RunloopMetric.latenessExcessMaxMs)
        let total = m[RunloopMetric.total] ?? 0, early = m[RunloopMetric.early] ?? 0, n = Format.count
        let added = result.addedThreadNames
        let threads =
            added.isEmpty
            ? "no thread of its own"
            : "\(added.count) thread\(added.count == 1 ? "" : "s") (\(added.joined(separator: ", ")))"
        let (outcome, what): (Outcome, String) =
            !result.finished
            ? (
                .timedOut,
                "\(n(m[RunloopMetric.completed] ?? 0)) of \(n(total)) requests woken when the trial's budget ran out"
            )
            : early > 0
                ? (.firesEarly, "\(n(early)) of \(n(total)) requests woken before their deadline")
                : (
                    .completed,
                    "\(n(m[RunloopMetric.fired] ?? 0)) of \(n(total)) requests woken by their \(Format.seconds(p.timeout)) timeout, "
                        + "p99 \(Format.milliseconds(m[RunloopMetric.latenessP99Ms] ?? .nan)) late" + floorClause(m)
                )
        var evidence =
            what + "; issuing took \(Format.seconds(m[RunloopMetric.issueS] ?? .nan)), the design added \(threads)"
        if let priority = result.threadPriority { evidence += "; its thread ran at \(priority.text)" }
        let timers = m[RunloopMetric.timersArmed].map { ", \(n($0)) timer settings" } ?? ""
        let mechanism = Evidence.when(
            result.started == p.tasks,
            "\(n(Double(result.started))) of \(n(total)) callers started before their deadline and raced it\(timers)",
            otherwise: "only \(n(Double(result.started))) of \(n(total)) callers started before their deadline")
        return VariantRecord(outcome: outcome, metrics: m, evidence: evidence, mechanism: mechanism)
    }
}
