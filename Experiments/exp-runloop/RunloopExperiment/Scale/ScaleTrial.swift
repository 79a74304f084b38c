import LabHarness

/// One trial of a timeout design at one size: `TimeoutTrial` (async callers, each racing its
/// timeout) beside a same-moment control (`StallWatch`), turned into exp-runloop's record.
///
/// The raw lateness is kept; `lateness.excess.*` is each timer's lateness minus what the control
/// thread was held up between its deadline and its firing, the part the design is answerable
/// for on a machine that stalls.
enum ScaleTrial {
    static func run(_ context: VariantContext, design: TimeoutDesignName, tasks: Int? = nil) throws -> VariantRecord {
        let parameters = RunloopParameters(context.options)
        let count = tasks ?? parameters.tasks
        let timeout = parameters.timeout
        // The control runs at the priority class of the design's own thread, so that it is held
        // up by what holds that thread up, and by nothing more.
        let control = StallWatch(realtime: design.runsOnRealtimeThread)
        let result = TimeoutTrial.run(design, requests: count, timeout: timeout,
                                      budget: ScaleParameters.trialBudget(tasks: count, timeout: timeout))
        control.stop()
        guard let result else { throw SetupError("\(design.rawValue) could not start (no run-loop thread)") }
        context.progress.advance()
        return record(result, design: design, timeout: timeout, control: control)
    }

    /// The record of one trial: metrics under exp-runloop's names, outcome and evidence.
    static func record(_ result: TimeoutTrial.Result, design: TimeoutDesignName, timeout: Seconds, control: StallWatch) -> VariantRecord {
        let m = result.metrics
        var metrics = Metrics()
        let total = m[.requests] ?? 0, fired = m[.timedOut] ?? 0, early = m[.early] ?? 0
        metrics[RunloopMetric.total] = total
        metrics[RunloopMetric.fired] = fired
        metrics[RunloopMetric.completed] = fired + (m[.completed] ?? 0)
        metrics[RunloopMetric.early] = early
        metrics[RunloopMetric.latenessP50Ms] = m[.latenessP50]
        metrics[RunloopMetric.latenessP99Ms] = m[.latenessP99]
        metrics[RunloopMetric.latenessMaxMs] = m[.latenessMax]
        metrics[RunloopMetric.issueS] = m[.issue]
        metrics[RunloopMetric.drainS] = m[.drain]
        metrics[RunloopMetric.threadsAdded] = m[.threadsAdded]
        if let priority = result.threadPriority { metrics[RunloopMetric.threadsRealtime] = priority.isGranted ? 1 : 0 }
        metrics[RunloopMetric.memoryPeakMb] = m[.memoryPeak]
        metrics[RunloopMetric.cpuS] = m[.cpu]
        if let ratio = m[.wallPerTimeout] {
            metrics[RunloopMetric.wallPerTimeout] = ratio
            metrics[RunloopMetric.wallS] = ratio * timeout
            metrics[RunloopMetric.wallControlDelayS] = control.delay(from: result.issuedAt, to: result.issuedAt + ratio * timeout)
        }
        var excess: [Double] = []
        for i in result.deadlines.indices where !result.firedAt[i].isNaN && !result.deadlines[i].isNaN {
            let late = result.firedAt[i] - result.deadlines[i]
            excess.append(late - control.delay(from: result.deadlines[i], to: result.firedAt[i]))
        }
        if let summary = LatencySummary(excess) {
            metrics[RunloopMetric.latenessExcessP50Ms] = summary.p50 * 1000
            metrics[RunloopMetric.latenessExcessP99Ms] = summary.p99 * 1000
            metrics[RunloopMetric.latenessExcessMaxMs] = summary.max * 1000
        }
        metrics.merge(control.metrics)

        let added = result.addedThreadNames
        let threads = added.isEmpty ? "no thread of its own" : "\(added.count) thread\(added.count == 1 ? "" : "s") (\(added.joined(separator: ", ")))"
        let outcome: Outcome
        var evidence: String
        if !result.finished {
            outcome = .timedOut
            evidence = "\(Format.count(metrics[RunloopMetric.completed] ?? 0)) of \(Format.count(total)) requests woken when the trial's budget ran out"
        } else if early > 0 {
            outcome = .firesEarly
            evidence = "\(Format.count(early)) of \(Format.count(total)) requests woken before their deadline"
        } else {
            outcome = .completed
            evidence = "\(Format.count(fired)) of \(Format.count(total)) requests woken by their \(Format.seconds(timeout)) timeout, p99 \(Format.milliseconds(m[.latenessP99] ?? .nan)) late"
        }
        evidence += "; issuing took \(Format.seconds(m[.issue] ?? .nan)), the design added \(threads)"
        if let priority = result.threadPriority { evidence += "; its thread ran at \(priority)" }
        return VariantRecord(outcome: outcome, metrics: metrics, evidence: evidence)
    }
}
