import Foundation

/// A finished child as a trial's record: read in one place for the runner's child trials and
/// for `runTrapProcess`'s trap processes, so that both tell a child's end the same way.
extension ChildRun {
    /// The record the child wrote as its result, if it wrote one that reads back.
    var result: VariantRecord? { resultPayload.flatMap(Self.decode) }

    /// A child that wrote no result, as a record: what it measured before its end (its last
    /// checkpoint's metrics, series, events and mechanism: measure, then trap) with the outcome
    /// of that end, the harness's evidence in front of the checkpoint's, its wall time, its signal
    /// when it crashed, and how many threads it had when the harness killed it. A child that
    /// exited 0 without a result failed: its trial said nothing. So did one whose exit status was
    /// lost (`exitStatusLost`): it is `failed` with the harness's evidence naming the cause, since
    /// reading it as exited 0 would record a crash as a completion.
    var endRecord: VariantRecord {
        let checkpoint = ChildProtocol.lastCheckpoint(in: stdout).flatMap(Self.decode)
        var metrics = checkpoint?.metrics ?? Metrics()
        if metrics[Metrics.wall] == nil { metrics[Metrics.wall] = wall }
        if outcome == .crashed, let signal { metrics[Metrics.signal] = Double(signal) }
        if killedByHarness, !threadsAtKill.isEmpty { metrics[Metrics.threadsAtKill] = Double(threadsAtKill.count) }
        let exitedSilently = outcome == .completed
        let lastError = stderr.split(separator: "\n").last.map { ": \($0)" } ?? ""
        let said = exitedSilently ? "the child exited 0 without writing a result" + lastError : evidence
        return VariantRecord(
            outcome: exitedSilently ? .failed : Outcome(outcome), metrics: metrics,
            evidence: said + (checkpoint?.evidence.map { "; \($0)" } ?? ""),
            series: checkpoint?.series ?? [:], events: checkpoint?.events ?? [], mechanism: checkpoint?.mechanism)
    }

    /// `record` with the machine's part when the machine broke this child (a thread limit, no
    /// CPU, no memory); a record that already judges nothing keeps its own reason.
    func withMachine(_ record: VariantRecord) -> VariantRecord {
        guard let machine, !record.outcome.judgesNothing else { return record }
        return machine.apply(to: record)
    }

    private static func decode(_ payload: String) -> VariantRecord? {
        try? JSONDecoder().decode(VariantRecord.self, from: Data(payload.utf8))
    }
}
