import Dispatch
import LabHarness

/// Uploads in the background: keeps a progress handler and schedules a retry on the main queue.
/// Both capture `self` weakly and make it strong again with `guard let self`: the weak-strong
/// dance, Swift's spelling of `__weak typeof(self) weakSelf` plus `__strong strongSelf`.
final class Uploader: @unchecked Sendable {   // used only on the main thread (the trial's body and the main queue)
    private(set) var progressReports = 0
    private(set) var retries = 0
    var onProgress: (() -> Void)?
    let lifetime: LifetimeTag
    private let log: DanceLog

    init(lifetime: LifetimeTag, log: DanceLog) {
        self.lifetime = lifetime
        self.log = log
    }

    /// The handler `start()` stores, made apart so the probe can see it before it is stored.
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
    func scheduleRetry(after delay: Seconds) {
        let log = self.log
        DispatchQueue.main.asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self else {
                log.record("retry-found-nil")
                return
            }
            self.retries += 1
            log.record("retry-ran")
        }
    }
}

/// `weak-strong`: `[weak self]` and `guard let self` in a stored closure and in delayed work.
enum WeakStrong {
    static func run(_ context: VariantContext) -> VariantRecord {
        let trial = DanceTrial(context, owner: "uploader")
        let scheduledAt: Seconds
        do {
            let uploader = Uploader(lifetime: trial.lifetime.tag(), log: trial.log)
            trial.lifetime.track(uploader)
            trial.probe.begin(uploader)
            trial.probe.created(on: uploader, uploader.makeProgressHandler())
            uploader.start()
            trial.probe.stored(on: uploader)
            uploader.reportProgress()
            trial.log.record("progress")
            trial.log.record("retry-scheduled")   // just before: the retry's deadline is at least a delay after this
            scheduledAt = trial.log.instant(of: "retry-scheduled") ?? MonotonicClock.now()
            trial.probe.pending(on: uploader) { uploader.scheduleRetry(after: trial.delay) }
            trial.lifetime.endScope(of: uploader)
        }
        trial.lifetime.scopeClosed()
        trial.lifetime.waitForRelease(within: trial.grace)
        // The retry must have run before the record is made: wait for it, with the main queue running.
        MainQueueFriendlyWait.until(deadline: scheduledAt + trial.delay + max(trial.grace, 1)) {
            trial.log.contains("retry-found-nil") || trial.log.contains("retry-ran")
        }

        var extra = Metrics()
        var retryNote = "the retry never ran"
        if let ran = trial.log.instant(of: "retry-found-nil") ?? trial.log.instant(of: "retry-ran") {
            let foundNil = trial.log.contains("retry-found-nil")
            extra[DanceMetric.delayedFoundNil] = foundNil ? 1 : 0
            if let end = trial.log.instant(of: "scope-end") { extra[DanceMetric.delayedRanAfterScopeS] = ran - end }
            retryNote = "the retry ran \(Format.seconds(ran - scheduledAt)) after it was scheduled and " + (foundNil ? "found nil" : "found the uploader alive")
        }
        let evidence = "the closures hold the uploader weakly (\(trial.probe.onceStored?.description ?? "?") stored, "
            + "\(trial.probe.whilePending?.description ?? "?") pending); \(trial.releaseSummary); \(retryNote)"
        return trial.record(trial.releaseOutcome, extra: extra, evidence: evidence)
    }
}
