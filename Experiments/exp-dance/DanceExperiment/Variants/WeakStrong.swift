import Dispatch
import LabHarness

/// Uploads in the background: keeps a progress handler and schedules a retry on the main queue.
/// Both capture `self` weakly and make it strong again with `guard let self`: the weak-strong
/// dance, Swift's spelling of `__weak typeof(self) weakSelf` plus `__strong strongSelf`.
final class Uploader: @unchecked Sendable {  // used only on the main thread (the trial's body and the main queue)
    private(set) var progressReports = 0, retries = 0
    var onProgress: (() -> Void)?
    let onDeinit: () -> Void
    private let note: @Sendable (String) -> Void  // where the retry says what it found (the trial's event log)
    init(onDeinit: @escaping () -> Void, note: @escaping @Sendable (String) -> Void) {
        (self.onDeinit, self.note) = (onDeinit, note)
    }
    deinit { onDeinit() }  // the trial's release instant, as the article's dealloc logs "deinit"

    func makeProgressHandler() -> () -> Void {
        { [weak self] in
            guard let self else { return }
            self.progressReports += 1
        }
    }

    func start() { onProgress = makeProgressHandler() }
    func reportProgress() { onProgress?() }

    /// Schedules a retry `delay` seconds from now on the main queue. If the uploader is gone by
    /// then, the block finds `nil` and does nothing.
    func scheduleRetry(after delay: Double) {
        let note = self.note
        DispatchQueue.main.asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self else { return note("retry-found-nil") }
            self.retries += 1
            note("retry-ran")
        }
    }
}

/// `weak-strong`: the uploader goes at its scope's end, its closures hold one weak reference and
/// no strong one, and the delayed retry, run later, finds nil.
enum WeakStrong {
    static func run(_ context: VariantContext) -> VariantRecord {
        let trial = OwnerTrial(context, owner: "uploader")
        let delay = trial.parameters.delay
        let scheduledAt = trial.now()
        do {
            let uploader = Uploader(onDeinit: trial.ownerDeinit) { context.event($0) }
            trial.watch(uploader)
            trial.probe.created(on: uploader, uploader.makeProgressHandler())
            uploader.start()
            trial.probe.stored(on: uploader)
            uploader.reportProgress()
            context.event("progress")
            context.event("retry-scheduled")  // just before: the retry's deadline is at least a delay after this
            trial.probe.pending(on: uploader) { uploader.scheduleRetry(after: delay) }
            trial.endScope(of: uploader)
        }
        trial.awaitRelease()
        // The retry must have run before the record is made: wait for it (a loaded machine may be
        // late), main queue running.
        let ran = { context.time(of: "retry-found-nil") ?? context.time(of: "retry-ran") }
        trial.runMainQueue(until: scheduledAt + delay + 5) { ran() != nil }
        let ranAt = ran(), foundNil = context.time(of: "retry-found-nil") != nil
        let after = (ranAt ?? 0) - (context.time(of: "scope-end") ?? 0), waited = trial.now() - scheduledAt
        if ranAt != nil {
            trial.metrics[DanceMetric.delayedFoundNil] = foundNil ? 1 : 0
            trial.metrics[DanceMetric.delayedRanAfterScopeS] = after
        }
        let found = foundNil ? "nil" : "the uploader alive"
        let retry = Evidence.when(
            ranAt != nil, "the delayed retry ran \(seconds: after) after the scope ended and found \(found)",
            otherwise: "the delayed retry had not run \(seconds: waited) after it was scheduled")
        let pending = trial.probe.whilePending ?? .zero
        let weakOnly = RefCounts(strong: 0, weak: 1, unowned: 0)
        let mechanism = Evidence.all([
            trial.heldMechanism("the stored closure", releasedHolding: weakOnly),
            .when(pending.strong == 0, "the pending retry held \(pending)"), retry,
        ])
        return trial.record(
            trial.outcome, mechanism: mechanism, evidence: "uploader \(trial.releaseSummary); \(retry.what)")
    }
}
