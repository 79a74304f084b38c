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
    let onDeinit: () -> Void
    init(onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
    deinit { onDeinit() }  // the trial's release instant, as the article's dealloc logs "deinit"

    func makeHandler() -> () -> Void {
        { [unowned self] in self.unread += 1 }
    }

    func subscribe(to bus: EventBus) { bus.subscribe(makeHandler()) }
}

/// `unowned-after-release`: the trap ends its process, so the trial runs in one of its own
/// (`runTrapProcess`): it measures, checkpoints, then lets the bus post.
enum UnownedAfterRelease {
    static func run(_ context: VariantContext) -> VariantRecord {
        guard context.isTrapProcess else {
            return context.runTrapProcess(
                budget: 10 + 3 * context.parameters(DanceParameters.self).grace, trapSays: "unowned reference")
        }
        let trial = OwnerTrial(context, owner: "badge")
        let bus = EventBus()
        do {
            let badge = Badge(onDeinit: trial.ownerDeinit)
            trial.watch(badge)
            trial.probe.created(on: badge, badge.makeHandler())
            badge.subscribe(to: bus)
            trial.probe.stored(on: badge)
            bus.post()
            context.event("post")
            trial.endScope(of: badge)
        }
        trial.awaitRelease()
        context.event("post-after-release")
        let held = trial.probe.onceStored ?? .zero
        let mechanism = Evidence.when(
            held.unowned > 0 && held.strong == 0 && trial.released == true,
            "the handler held \(held) once stored (reference counts) and the badge was gone before the post",
            otherwise: "the handler held \(held) once stored; badge \(trial.releaseSummary)")
        let before = "the handler held the badge unowned; badge \(trial.releaseSummary), then the bus posted"
        context.checkpoint(trial.record(.crashed, mechanism: mechanism, evidence: before))
        bus.post()  // reads an unowned reference to a released badge: the runtime traps here
        return trial.record(.completed, mechanism: mechanism, evidence: before + ", and nothing trapped")
    }
}
