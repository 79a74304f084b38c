/// Where snapshots join the harness's results: a child killed for a deadlock or at its budget,
/// a variant body that declared a deadlock or a stall in its own process.
///
/// A snapshot never changes an outcome. When stacks cannot be had, the evidence gains one line
/// that says why, and everything else is as it was.
public enum StackEvidence {
    /// The outcomes that get a snapshot: the process is stuck and about to end.
    public static func wantsStacks(_ outcome: Outcome) -> Bool {
        outcome == .deadlock || outcome == .stalled
    }

    /// `run` with `snapshot` attached and its note (if any) appended to the evidence.
    static func attach(_ snapshot: StackSnapshot?, to run: ChildRun) -> ChildRun {
        guard let snapshot else { return run }
        var run = run
        run.stacks = snapshot
        if let note = snapshot.note { run.evidence += "; " + note }
        return run
    }

    /// `record` with `snapshot`'s threads as its `stacks` and its note in the evidence.
    public static func attach(_ snapshot: StackSnapshot?, to record: VariantRecord) -> VariantRecord {
        guard let snapshot, record.stacks == nil else { return record }
        var record = record
        if !snapshot.threads.isEmpty { record.stacks = snapshot.threads }
        if let note = snapshot.note { record.evidence = (record.evidence.map { $0 + "; " } ?? "") + note }
        return record
    }

    /// For a variant body that ran in a child: a deadlock or stall it declared itself gets a
    /// snapshot of the child's own threads, taken while they are still blocked.
    static func attachOwn(to record: VariantRecord, inChild: Bool) -> VariantRecord {
        guard inChild, wantsStacks(record.outcome), record.stacks == nil else { return record }
        return attach(StackCapture.captureOwn(), to: record)
    }
}
