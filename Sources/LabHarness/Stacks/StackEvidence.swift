/// Where snapshots join the harness's results: a child killed for a deadlock or at its budget,
/// a variant body that declared a deadlock or a stall in its own process.
///
/// A snapshot never changes an outcome. When stacks cannot be had, the evidence gains one line
/// that says why, and everything else is as it was.
enum StackEvidence {
    /// The outcomes that get a snapshot: the process is stuck and about to end.
    static func wantsStacks(_ outcome: Outcome) -> Bool {
        outcome == .deadlock || outcome == .stalled
    }

    /// `run` with `raw` attached and its note (if any) appended to the evidence.
    static func attach(_ raw: RawStacks?, to run: ChildRun) -> ChildRun {
        guard let raw else { return run }
        var run = run
        run.rawStacks = raw
        if let note = raw.note { run.evidence += "; " + note }
        return run
    }

    /// `record` with `snapshot`'s threads as its `stacks` and its note in the evidence (a note
    /// the record's evidence already carries is not repeated).
    static func attach(_ snapshot: StackSnapshot?, to record: VariantRecord) -> VariantRecord {
        guard let snapshot, record.stacks == nil else { return record }
        var record = record
        if !snapshot.threads.isEmpty { record.stacks = snapshot.threads }
        let fresh = (snapshot.note ?? "").components(separatedBy: "; ").filter {
            !$0.isEmpty && record.evidence?.contains($0) != true
        }
        if !fresh.isEmpty {
            record.evidence = (record.evidence.map { $0 + "; " } ?? "") + fresh.joined(separator: "; ")
        }
        return record
    }

    /// For a variant body that ran in a child: a deadlock or stall it declared itself gets a
    /// snapshot of the child's own threads, taken while they are still blocked.
    static func attachOwn(to record: VariantRecord, inChild: Bool) -> VariantRecord {
        guard inChild, wantsStacks(record.outcome), record.stacks == nil else { return record }
        return attach(StackCapture.captureOwn(), to: record)
    }
}
