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
/// The trap would end the process before it could report what led to it, so the trial runs
/// in two processes: the harness's child launches itself once more with `--trap-stage`; that
/// grandchild subscribes, releases the badge, writes what it measured on stdout, then posts and
/// traps. The child reports `crashed` with the grandchild's first fatal-error line (the
/// runtime's own message, picked out by the harness's `ChildRun.evidence`) and its events.
enum UnownedAfterRelease {
    static let name = DanceVariant.unownedAfterRelease.rawValue
    /// Prefix of the line on which the grandchild hands over its measurements before the trap.
    static let partialPrefix = "dance-partial "

    static func run(_ context: VariantContext) -> VariantRecord {
        if context.options.bool("trap-stage") { return trapStage(context) }
        guard context.inChild else {
            return VariantRecord(outcome: .failed, evidence: "\(name) traps on purpose: run it in a child process (the default)")
        }
        let grace = context.options.double("grace")
        let command = context.relaunch(["--child-variant", name, "--trap-stage", "--grace", String(grace)])
        let spec = ChildSpec(executable: command.executable, arguments: command.arguments,
                             environment: ["SWIFT_BACKTRACE": "enable=no"],
                             budget: 10 + grace)
        let run: ChildRun
        do { run = try ChildProcess.run(spec) } catch {
            return VariantRecord(outcome: .failed, evidence: "could not launch the trap stage: \(error)")
        }
        // It did not trap: its own record says so.
        if let payload = run.resultPayload,
           let record = try? JSONDecoder().decode(VariantRecord.self, from: Data(payload.utf8)) {
            return record
        }
        let partial = run.stdout.split(separator: "\n")
            .first { $0.hasPrefix(partialPrefix) }
            .flatMap { try? JSONDecoder().decode(VariantRecord.self, from: Data($0.dropFirst(partialPrefix.count).utf8)) }
        var metrics = partial?.metrics ?? Metrics()
        if let signal = run.signal { metrics["signal"] = Double(signal) }
        let story = partial?.evidence.map { "; \($0)" } ?? "; the trap stage reported nothing before it ended"
        return VariantRecord(outcome: Outcome(rawValue: run.outcome.rawValue), metrics: metrics,
                             evidence: run.evidence + story, events: partial?.events ?? [])
    }

    /// The grandchild: subscribe, release, hand over the measurements, post, trap.
    static func trapStage(_ context: VariantContext) -> VariantRecord {
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
        if let data = try? JSONEncoder().encode(trial.record(.crashed, evidence: before)) {
            FileHandle.standardOutput.write(Data((partialPrefix + String(decoding: data, as: UTF8.self) + "\n").utf8))
        }
        bus.post()   // reads an unowned reference to a released badge: the runtime traps here
        return trial.record(.completed, evidence: before + ", and nothing trapped")
    }
}
