import LabHarness

/// How far `--tasks` and `--sweep` go, what they refuse, and the limits of their trials.
///
/// A caller that blocks holds a thread for the whole timeout, and so does a placement that runs
/// a run loop per request: 1000 of them is already more threads than the machine has any use
/// for, so they stop there. Async callers hold no thread while they wait, and the designs that
/// keep every timeout on one thread (or none) go to 100,000 requests.
enum ScaleParameters {
    /// The most requests with blocking callers or a thread per request.
    static let blockingCap = 1000
    /// The most requests with async callers and a scalable design.
    static let maxTasks = 100_000
    /// The sweep when `--sweep` is given without counts... never: counts are required; this is
    /// the one the help suggests and the tests scale down.
    static let suggestedSweep = [10, 100, 1000, 10_000]
    /// At most this many counts in one sweep (each costs a few seconds per design).
    static let maxCounts = 8

    /// The designs a sweep runs at every count, in the order its table lists them.
    static let sweptDesigns: [TimeoutDesignName] = [.sharedThread, .deadlineHeap, .dispatchTimer, .taskSleep]

    /// The request counts of `--sweep`, ascending; throws a one-line usage error.
    static func sweepCounts(_ text: String) throws -> [Int] {
        let valid = "request counts from 1 to \(maxTasks), comma-separated, such as \(suggestedSweep.map(String.init).joined(separator: ","))"
        let items = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        var counts: [Int] = []
        for item in items {
            guard let n = Int(item), (1...maxTasks).contains(n) else {
                throw UsageError("--sweep takes \(valid), not '\(UsageError.echo(item))'")
            }
            if !counts.contains(n) { counts.append(n) }
        }
        guard counts.count <= maxCounts else { throw UsageError("--sweep takes at most \(maxCounts) counts (\(valid))") }
        return counts.sorted()
    }

    /// A child's `--sweep-point DESIGN:COUNT`.
    static func sweepPoint(_ text: String) throws -> (design: TimeoutDesignName, tasks: Int) {
        let parts = text.split(separator: ":").map(String.init)
        guard parts.count == 2, let design = TimeoutDesignName(rawValue: parts[0]), let n = Int(parts[1]), (1...maxTasks).contains(n) else {
            throw UsageError("--sweep-point takes DESIGN:COUNT (\(TimeoutDesignName.allCases.map(\.rawValue).joined(separator: ", ")); 1 to \(maxTasks)), not '\(UsageError.echo(text))'")
        }
        return (design, n)
    }

    /// The flags' combinations, checked once on the command line (children inherit checked ones).
    static func validate(_ options: ParsedOptions) throws {
        guard !options.wasGiven("child-variant") else { return }
        let parameters = RunloopParameters(options)
        if let sweep = options.text("sweep") {
            _ = try sweepCounts(sweep)
            if options.wasGiven("variant") { throw UsageError("--sweep runs every design that does not block on the pool (\(sweptDesigns.map(\.rawValue).joined(separator: ", "))); leave out --variant") }
            if options.wasGiven("tasks") { throw UsageError("--sweep sets the request counts itself; leave out --tasks") }
            if options.wasGiven("caller"), parameters.caller != .async { throw UsageError("--sweep always uses async callers; leave out --caller or give --caller async") }
            if options.int("trials") > 1, options.int("jobs") > 1 {
                throw UsageError("--sweep with --trials \(options.int("trials")) would run the sweeps side by side and blur their lateness; add --jobs 1")
            }
            return
        }
        if options.wasGiven("sweep-point") { throw UsageError("--sweep-point is internal to --sweep's child trials") }
        let selected = (options.list("variant").isEmpty ? runloopExperiment.defaultPlan(options, runloopExperiment.variants) : options.list("variant"))
            .compactMap(RunloopVariant.init(rawValue:))
        if selected.contains(.sweep) { throw UsageError("--variant sweep runs with --sweep COUNTS (such as --sweep \(suggestedSweep.map(String.init).joined(separator: ",")))") }
        if parameters.caller != .async, let design = selected.first(where: { $0.timeoutDesign != nil }) {
            throw UsageError("--variant \(design.rawValue) needs --caller async: its callers are tasks racing their timeouts, and blocking callers' cost is shared-thread's lesson")
        }
        let tasks = parameters.tasks
        guard tasks > blockingCap else { return }
        if parameters.caller != .async {
            throw UsageError("--tasks \(tasks) is too many for \(parameters.caller.phrase): each blocks a thread while it waits, so at most \(blockingCap) (--caller async goes up to \(maxTasks))")
        }
        if let heavy = selected.first(where: \.holdsAThreadPerRequest) {
            throw UsageError("--tasks \(tasks) is too many for \(heavy.rawValue): it holds a thread per request, so at most \(blockingCap) (up to \(maxTasks): \(RunloopVariant.scalable.map(\.rawValue).joined(separator: ", ")))")
        }
    }

    /// The default plan, adjusted: async callers also run the scalable designs; more requests
    /// than a thread-per-request placement takes leaves those placements out; a sweep is alone.
    static func adjust(_ plan: [String], _ options: ParsedOptions) -> [String] {
        if options.text("sweep") != nil || options.text("sweep-point") != nil { return [RunloopVariant.sweep.rawValue] }
        guard RunloopParameters(options).caller == .async else { return plan }
        var adjusted = plan
        let designs = [RunloopVariant.deadlineHeap, .dispatchTimer, .taskSleep].map(\.rawValue)
        if let at = adjusted.firstIndex(of: RunloopVariant.sharedThread.rawValue) {
            adjusted.insert(contentsOf: designs, at: at + 1)
        } else {
            adjusted += designs
        }
        if RunloopParameters(options).tasks > blockingCap {
            adjusted = adjusted.filter { RunloopVariant(rawValue: $0).map { !$0.holdsAThreadPerRequest } ?? true }
        }
        return adjusted
    }

    /// A design's trial budget: `TimeoutTrial`'s own wait (four timeouts, more for huge counts).
    static func trialBudget(tasks: Int, timeout: Seconds) -> Seconds {
        max(10, 4 * timeout + Double(tasks) * 1e-4)
    }

    /// A rough duration of one design at one count: the timeout, a process start, the issuing.
    static func estimate(tasks: Int, timeout: Seconds) -> Seconds {
        timeout + 0.3 + Double(tasks) * 2e-5
    }

    /// The scalable designs' variants: the harness kills a child past the trial's own budget.
    static let designLimits = TrialLimits(budget: { o in trialBudget(tasks: RunloopParameters(o).tasks, timeout: RunloopParameters(o).timeout) + 20 },
                                          estimate: { o in estimate(tasks: RunloopParameters(o).tasks, timeout: RunloopParameters(o).timeout) })

    /// The points of the sweep `options` asks for, in the order they run (count by count, so
    /// the designs at one count run close together in time).
    static func points(_ options: ParsedOptions) -> [(design: TimeoutDesignName, tasks: Int)] {
        let counts = (try? sweepCounts(options.text("sweep") ?? "")) ?? []
        return counts.flatMap { n in sweptDesigns.map { ($0, n) } }
    }

    /// The sweep variant: one child that runs every point in a child of its own, one at a time.
    static let sweepLimits = TrialLimits(
        budget: { o in
            let timeout = RunloopParameters(o).timeout
            return points(o).reduce(30) { $0 + trialBudget(tasks: $1.tasks, timeout: timeout) + 20 }
        },
        estimate: { o in
            let timeout = RunloopParameters(o).timeout
            return points(o).reduce(0) { $0 + estimate(tasks: $1.tasks, timeout: timeout) }
        },
        progressTotal: { points($0).count })
}
