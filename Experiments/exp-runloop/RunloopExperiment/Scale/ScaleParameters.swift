import Foundation
import LabHarness

/// How far `--tasks` and `--sweep` go, what they refuse, and how long a design's trial takes.
///
/// A blocking caller holds a thread for the whole timeout, and so does a run loop per request:
/// they stop at 1000 (`blockingCap`), already more threads than the machine has any use for.
/// Async callers with a design that keeps every timeout on one thread (or none) go to `maxTasks`.
enum ScaleParameters {
    static let blockingCap = 1000, maxTasks = 100_000

    /// Whether `name` is a request variant whose placement holds a thread, a pool block or an
    /// operation per request (a run loop per request: every placement but shared-thread).
    static func holdsAThreadPerRequest(_ name: String) -> Bool {
        RunloopVariant(rawValue: name)?.placement?.runLoopPerRequest == true
    }

    /// The flags' combinations, checked once on the command line (a child's are checked: it
    /// gets them from its parent, with a point's size). The sweep checks its own sizes.
    static func check(_ p: RunloopParameters, _ options: ParsedOptions) throws {
        guard !options.wasGiven("child-variant") else { return }
        if options.text("sweep") != nil {
            guard !options.wasGiven("caller") || p.caller == .async else {
                throw UsageError("--sweep always uses async callers; leave out --caller or give --caller async")
            }
            return
        }
        // The default plan needs no check: `adjust` keeps it within these limits.
        let selected = options.list("variant")
        if p.caller != .async,
            let design = selected.first(where: { name in RunloopScale.designs.contains { $0.rawValue == name } })
        {
            throw UsageError(
                "--variant \(design) needs --caller async: its callers are tasks racing their timeouts, and blocking callers' cost is shared-thread's lesson"
            )
        }
        guard p.tasks > blockingCap else { return }
        if p.caller != .async {
            throw UsageError(
                "--tasks \(p.tasks) is too many for \(p.caller.phrase): each blocks a thread while it waits, so at most \(blockingCap) (--caller async goes up to \(maxTasks))"
            )
        }
        if let heavy = selected.first(where: holdsAThreadPerRequest) {
            let designs = RunloopScale.designs.map(\.rawValue).joined(separator: ", ")
            throw UsageError(
                "--tasks \(p.tasks) is too many for \(heavy): it holds a thread per request, so at most \(blockingCap) (up to \(maxTasks): shared-thread, \(designs))"
            )
        }
    }

    /// Async callers also run the designs, after shared-thread; more requests than a
    /// thread-per-request placement takes leaves those placements out.
    static func adjust(_ plan: [String], _ p: RunloopParameters) -> [String] {
        guard p.caller == .async else { return plan }
        var adjusted = plan
        let designs = RunloopScale.designs.map(\.rawValue)
        adjusted.insert(
            contentsOf: designs,
            at: adjusted.firstIndex(of: RunloopVariant.sharedThread.rawValue).map { $0 + 1 } ?? adjusted.endIndex)
        guard p.tasks > blockingCap else { return adjusted }
        return adjusted.filter { !holdsAThreadPerRequest($0) }
    }

    /// A design's trial: the timeout, a process start, the issuing; the harness ends it a little
    /// after the trial's own budget.
    static let time = TrialTiming.from { (p: RunloopParameters) in
        TrialTime(expected: p.timeout + 0.3 + Double(p.tasks) * 2e-5, budget: p.designBudget + 20)
    }
}
