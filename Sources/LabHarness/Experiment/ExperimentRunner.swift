import Foundation
import Synchronization

/// Runs an experiment: plans its trials, runs them (children in parallel up to `--jobs`),
/// turns every trial into a record (a child that died without reporting gets its outcome from
/// the harness), aggregates repeated trials, grades outcomes and evaluates findings.
///
/// Tests call it directly with arguments; `ExperimentMain` calls it for the command line.
public enum ExperimentRunner {
    /// Parses `arguments` (without the program name) and runs. Child trials launch
    /// `executable` (default: this process's own executable) with `childPrefix` before the
    /// trial's own arguments (a program that hosts several experiments, such as `lab`, passes
    /// the word that selects this one).
    public static func run(
        _ definition: ExperimentDefinition, arguments: [String],
        executable: String? = nil, childPrefix: [String] = [],
        status: RunStatus? = nil
    ) throws -> ExperimentReport {
        let options = try definition.parser.parse(arguments)
        let parameters = try definition.parameters(options)
        return run(
            definition, options: options, parameters: parameters, executable: executable, childPrefix: childPrefix,
            status: status)
    }

    /// What a run with `options` will take, from each variant's own estimate, its trials and
    /// the lanes that run them side by side; and how many trials that is.
    /// A sweep runs its family at every size, one point at a time.
    /// `variants` counts the sweep's points in a sweep run.
    public static func estimate(
        _ definition: ExperimentDefinition, options: ParsedOptions, parameters: (any ExperimentParameters)? = nil
    ) -> (seconds: Seconds, trials: Int, variants: Int) {
        let trials = options.int("trials")
        if let sweep = definition.sweep, let sizes = try? sweep.sizes(options), !sizes.isEmpty {
            let points = sizes.flatMap { size in
                sweep.family(options).map { ($0, sweep.pointOptions(options, variant: $0.name, size: size)) }
            }
            let seconds = points.reduce(0.0) { sum, point in
                sum + ((try? definition.parameters(point.1)).map { point.0.trialTime($0).expected } ?? 0)
            }
            return (seconds * Double(trials), points.count * trials, points.count)
        }
        guard let parameters = parameters ?? (try? definition.parameters(options)) else { return (0, 0, 0) }
        let variants = definition.plan(options, parameters).compactMap(definition.variant(named:))
        let total = variants.reduce(0) { $0 + $1.trialTime(parameters).expected } * Double(trials)
        let jobs = Double(max(1, min(options.int("jobs"), variants.count * trials)))
        let longest = variants.map { $0.trialTime(parameters).expected }.max() ?? 0
        return (max(total / jobs, longest), variants.count * trials, variants.count)
    }

    /// Runs with `options` and the `parameters` built from them, once, by the caller.
    static func run(
        _ definition: ExperimentDefinition, options: ParsedOptions, parameters: any ExperimentParameters,
        executable: String? = nil, childPrefix: [String] = [],
        status: RunStatus? = nil
    ) -> ExperimentReport {
        let variants = definition.plan(options, parameters).compactMap(definition.variant(named:))
        let trials = options.int("trials")
        let path = executable ?? ChildProcess.currentExecutablePath()
        if let sweep = definition.sweep, let sizes = try? sweep.sizes(options), !sizes.isEmpty {
            return runSweep(
                definition, sweep, sizes: sizes, options: options, parameters: parameters, executable: path,
                prefix: childPrefix, status: status)
        }

        struct Item { var index: Int; var variant: Variant; var trial: Int }
        var items: [Item] = []
        for variant in variants {
            for trial in 0..<trials { items.append(Item(index: items.count, variant: variant, trial: trial)) }
        }
        let jobs = max(1, min(options.int("jobs"), items.count))
        // With several lanes, the longest trials start first so the run ends soonest.
        let expected = { (item: Item) in item.variant.trialTime(parameters).expected }
        let order = jobs > 1 ? items.sorted { expected($0) > expected($1) } : items
        status?.planned(items.count)

        let records = Mutex<[Int: VariantRecord]>([:])
        let queue = Mutex(order)
        let work: @Sendable () -> Void = {
            while let item = queue.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
                if ChildProcess.isInterrupted {
                    records.withLock {
                        $0[item.index] = VariantRecord(
                            outcome: .interrupted, evidence: "not started: the run was interrupted")
                    }
                    continue
                }
                status?.started(
                    item.index, variant: item.variant.name,
                    total: item.variant.trialTime(parameters).progressTotal)
                let record = runTrial(
                    definition, item.variant, options: options, parameters: parameters,
                    executable: path, prefix: childPrefix
                ) { value in
                    status?.progressed(item.index, value)
                }
                records.withLock { $0[item.index] = record }
                status?.finished(item.index)
            }
        }
        if jobs == 1 {
            work()
        } else {
            // Dedicated threads, not a dispatch queue: each lives as long as the children it
            // spawns (children die with the thread that spawned them), and the experiments
            // often flood the dispatch pool on purpose.
            //
            // The calling thread is a lane too, so the run finishes even when the machine
            // refuses every other lane's thread (a thread limit): it waits only for the lanes
            // that began before it ran out of work, and a lane created later finds the gate
            // closed and ends at once.
            let lanes = Mutex((begun: 0, ended: 0, closed: false))
            let done = DispatchSemaphore(value: 0)
            for lane in 1..<jobs {
                NamedThread.start("lab.lane.\(lane)") {
                    guard
                        lanes.withLock({ l in
                            l.closed
                                ? false
                                : {
                                    l.begun += 1; return true
                                }()
                        })
                    else { return }
                    work()
                    lanes.withLock { $0.ended += 1 }
                    done.signal()
                }
            }
            work()
            lanes.withLock { $0.closed = true }
            while lanes.withLock({ $0.ended < $0.begun }) { done.wait() }
        }

        let all = records.withLock { $0 }
        var reports: [VariantReport] = []
        for variant in variants {
            let mine = items.filter { $0.variant.name == variant.name }.compactMap { all[$0.index] }
            reports.append(aggregate(variant, mine))
        }
        let byName = Dictionary(reports.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let platform = PlatformInfo.current
        let claims = variants.compactMap { variant in
            variant.claim.flatMap { claim in
                byName[variant.name].map { report in
                    if let missing = claim.premiseMissing?(options) {
                        return FindingReport(
                            id: claim.id, applicable: false, reproduced: false,
                            summary: "not applicable to this run: \(missing)")
                    }
                    return claim.report(report, expectations: variant.expectations)
                }
            }
        }
        let findings =
            claims
            + definition.findings.compactMap {
                $0.report(variants: byName, options: options, platform: platform, parameters: parameters)
            }
        return ExperimentReport(
            experiment: definition.name, platform: platform,
            parameters: definition.reportParameters(options), variants: reports, findings: findings)
    }

    // MARK: - One trial

    static func runTrial(
        _ definition: ExperimentDefinition, _ variant: Variant, options: ParsedOptions,
        parameters: any ExperimentParameters,
        executable: String, prefix: [String], onProgress: @escaping @Sendable (Int) -> Void
    ) -> VariantRecord {
        let time = variant.trialTime(parameters)
        if variant.runsInProcess {
            let machine = MachineWatch()
            machine.poll()
            return machine.apply(to: runBody(variant, options: options, parameters: parameters, inChild: false))
        }
        var spec = ChildSpec(
            executable: executable,
            arguments: prefix + definition.childArguments(options, variant: variant.name),
            environment: ["SWIFT_BACKTRACE": "enable=no"],
            budget: time.budget, stallWindow: time.stallWindow,
            onProgress: onProgress)
        spec.endsAtThreadLimit = true
        do {
            return record(from: try ChildProcess.run(spec), variant: variant)
        } catch ChildProcessError.spawnFailed(_, let code) where code == EAGAIN {
            return VariantRecord(outcome: .resourceLimited, evidence: MachineCheck.spawnRefused())
        } catch ChildProcessError.pipeFailed(let code) where MachineCheck.descriptorsExhausted(errno: code) != nil {
            let limited = MachineCheck.descriptorsExhausted(errno: code)!
            return VariantRecord(outcome: limited.outcome, metrics: limited.metrics, evidence: limited.evidence)
        } catch {
            return VariantRecord(outcome: .failed, evidence: "\(error)")
        }
    }

    static func runBody(
        _ variant: Variant, options: ParsedOptions, parameters: any ExperimentParameters, inChild: Bool,
        progress: ProgressCounter = ProgressCounter()
    ) -> VariantRecord {
        let context = VariantContext(
            variant: variant.name, options: options, inChild: inChild, progress: progress,
            parameters: parameters, instruments: variant.instruments)
        do {
            return StackEvidence.attachOwn(to: context.finish(try variant.body(context)), inChild: inChild)
        } catch {
            return context.finish(VariantRecord(outcome: .failed, evidence: "\(error)"))
        }
    }

    /// The record of a child trial: its own result when it wrote one, otherwise what the
    /// harness saw of its end merged into the child's last checkpoint (`ChildRun.endRecord`),
    /// with its progress and the stacks taken before a kill. Either way, the machine's part when
    /// the parent saw the machine break the trial (a thread limit reached while the child ran:
    /// whatever the child measured, it measured without the threads it asked for).
    static func record(from run: ChildRun, variant: Variant) -> VariantRecord {
        if let result = run.result { return run.withMachine(result) }
        var ended = run.endRecord
        if let name = variant.progressMetric { ended.metrics[name] = Double(run.progress ?? 0) }
        return StackEvidence.attach(run.stacks, to: run.withMachine(ended))
    }

    // MARK: - Trials into one report

    /// One report from a variant's trials: the outcome with the worst grade any trial got (the
    /// most frequent among equals), so a claim reads as reproduced only when every trial showed
    /// it; the median of each metric over the trials that recorded it, outcome counts, the worst
    /// grade, and evidence, series and events from a trial with the reported outcome.
    static func aggregate(_ variant: Variant, _ records: [VariantRecord]) -> VariantReport {
        guard let first = records.first else {
            return VariantReport(name: variant.name, outcome: .failed, grade: .forbidden, evidence: "no trial ran")
        }
        var counts: [Outcome: Int] = [:]
        for r in records { counts[r.outcome, default: 0] += 1 }
        // One trial the machine broke (or an interrupted one) leaves the variant unjudged: the
        // other trials' figures would be judged as if it had run.
        let machine = counts.filter { $0.key.judgesNothing }.max { $0.value < $1.value }?.key
        let grade = { (outcome: Outcome) in variant.expectations.grade(of: outcome) }
        let outcome =
            machine
            ?? counts.max { a, b in
                grade(a.key) != grade(b.key) ? grade(a.key) < grade(b.key) : a.value < b.value
            }!.key
        let representative = records.first { $0.outcome == outcome } ?? first
        // A trial that did not see its mechanism is graded neither way, like one the machine broke;
        // but a forbidden outcome of a trial that was judged stays forbidden, whatever the others did.
        let unseen = records.contains { $0.mechanism?.seen == false }
        let judged = records.filter { !$0.outcome.judgesNothing && $0.mechanism?.seen != false }
        let forbidden = judged.contains { grade($0.outcome) == .forbidden }
        let worst: Grade? =
            forbidden
            ? .forbidden : machine != nil || unseen ? nil : (counts.keys.map(grade).max() ?? .forbidden)
        let mechanism = records.first { $0.mechanism?.seen == false }?.mechanism ?? representative.mechanism

        var metrics = Metrics()
        if records.count == 1 {
            metrics = first.metrics
        } else {
            var names: [String] = []
            for r in records { for (name, _) in r.metrics where !names.contains(name) { names.append(name) } }
            for name in names {
                let values = records.compactMap { $0.metrics[name] }
                metrics[name] = LatencySummary.percentile(50, of: values)
            }
        }
        return VariantReport(
            name: variant.name, outcome: outcome, grade: worst,
            trials: records.count > 1
                ? Dictionary(counts.map { ($0.key.rawValue, $0.value) }, uniquingKeysWith: +) : nil,
            metrics: metrics, evidence: representative.evidence,
            series: representative.series.isEmpty ? nil : representative.series,
            events: representative.events.isEmpty ? nil : representative.events,
            stacks: representative.stacks, mechanism: mechanism)
    }
}
