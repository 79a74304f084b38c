import Foundation
import LabHarness

/// Delivers posts to the handlers subscribed to it. It outlives its subscribers, as a
/// notification centre or an app-wide event stream does.
final class EventBus {
    private var handlers: [() -> Void] = []

    func subscribe(_ handler: @escaping () -> Void) { handlers.append(handler) }
    func post() { for handler in handlers { handler() } }
}

/// An unread-count badge that subscribes with `[unowned self]`: a promise to the runtime that
/// the badge outlives the handler. Nothing unsubscribes it, so the promise is broken the first
/// time the bus posts after the badge is gone.
final class Badge {
    private(set) var unread = 0
    let lifetime: LifetimeTag

    init(lifetime: LifetimeTag) {
        self.lifetime = lifetime
    }

    /// The handler `subscribe(to:)` hands over, made apart so the probe can see it.
    func makeHandler() -> () -> Void {
        { [unowned self] in self.unread += 1 }
    }

    func subscribe(to bus: EventBus) { bus.subscribe(makeHandler()) }
}

/// `unowned-after-release`: an `[unowned self]` handler called after its owner is gone.
///
/// The trap ends the process before it could report what led to it, so the trial measures
/// first (subscribe, release the badge, wait for the release), hands that to the harness as a
/// checkpoint, then lets the bus post. The harness reports `crashed` with the runtime's own
/// message (the first fatal-error line) in front of the checkpoint's evidence, metrics and
/// events.
enum UnownedAfterRelease {
    static func run(_ context: VariantContext) -> VariantRecord {
        guard context.inChild else {
            return VariantRecord(outcome: .failed,
                                 evidence: "\(context.variant) traps on purpose: run it in a child process (the default)")
        }
        let trial = DanceTrial(context, owner: "badge")
        let bus = EventBus()
        do {
            let badge = Badge(lifetime: trial.lifetime.tag())
            trial.lifetime.track(badge)
            trial.probe.begin(badge)
            trial.probe.created(on: badge, badge.makeHandler())
            badge.subscribe(to: bus)
            trial.probe.stored(on: badge)
            bus.post()
            trial.log.record("post")
            trial.lifetime.endScope(of: badge)
        }
        trial.lifetime.scopeClosed()
        trial.lifetime.waitForRelease(within: trial.grace)
        trial.log.record("post-after-release")

        let before = "the handler held the badge unowned (\(trial.probe.onceStored?.description ?? "?") once stored); "
            + trial.releaseSummary + "; then the bus posted"
        context.checkpoint(trial.record(.crashed, evidence: before))
        bus.post()   // reads an unowned reference to a released badge: the runtime traps here
        return trial.record(.completed, evidence: before + ", and nothing trapped")
    }
}
