import Dispatch
import LabHarness

/// The seed's `Foo` in Swift: two stored completions whose parameter is a `Foo`. `init` calls
/// `completion2(self)`, and `completion2` schedules `completion1(foo)` on the main queue
/// `delay` seconds later, reaching the object only through its parameter.
///
/// Neither stored completion captures the object, so storing them makes no cycle. The delayed
/// block does capture `foo` (the parameter) strongly: that keeps the object alive exactly until
/// the block has run, which is what the seed's printed order shows (`completion2`, two seconds,
/// `completion1`, `dealloc`). The `probe` lines are the lab's measurement, not the seed's code.
final class Foo: @unchecked Sendable {   // used only on the main thread (the trial's body and the main queue)
    typealias Completion = (Foo) -> Void

    var completion1: Completion?
    var completion2: Completion?
    let lifetime: LifetimeTag

    init(delay: Seconds, log: DanceLog, lifetime: LifetimeTag, probe: CaptureProbe) {
        self.lifetime = lifetime
        probe.begin(self)
        probe.created(on: self, Foo.makeCompletion2(delay: delay, log: log, probe: probe))
        completion1 = Foo.makeCompletion1(log: log)
        completion2 = Foo.makeCompletion2(delay: delay, log: log, probe: probe)
        probe.stored(on: self)
        completion2?(self)
    }

    static func makeCompletion1(log: DanceLog) -> Completion {
        { _ in log.record("completion1") }
    }

    static func makeCompletion2(delay: Seconds, log: DanceLog, probe: CaptureProbe) -> Completion {
        { foo in
            log.record("completion2")
            probe.pending(on: foo) {
                DispatchQueue.main.asyncAfter(deadline: .now() + delay) {
                    log.record("after-delay")
                    foo.completion1?(foo)   // the parameter, captured by this block, plays strongSelf
                }
            }
        }
    }
}

/// `heap-stack-delayed`: the seed's demo, with timestamps.
enum HeapStackDelayed {
    static func run(_ context: VariantContext) -> VariantRecord {
        let trial = DanceTrial(context, owner: "foo")
        let delay = trial.delay
        // The machine's own stalls meanwhile, so the deinit's gap can be judged without them.
        let control = StallWatch()
        do {
            // The seed's `__autoreleasing Foo *foo = [Foo new];` in a scope that ends at once.
            let foo = Foo(delay: delay, log: trial.log, lifetime: trial.lifetime.tag(), probe: trial.probe)
            trial.lifetime.track(foo)
            trial.lifetime.endScope(of: foo)
        }
        trial.lifetime.scopeClosed()
        let start = trial.log.instant(of: "completion2") ?? MonotonicClock.now()
        // Half way through the delay: the pending block should be the one thing keeping foo alive.
        let midpoint = start + delay / 2
        MainQueueFriendlyWait.pass(until: midpoint)
        let aliveAtCheck = trial.lifetime.isAlive
        trial.lifetime.waitForRelease(within: trial.grace, from: start + delay)

        let c2 = trial.log.instant(of: "completion2"), c1 = trial.log.instant(of: "completion1")
        let gone = trial.lifetime.tracker.releasedAt(trial.lifetime.label)
        // Alive half way through the delay, judged from the release's own timestamp when there
        // is one: a machine stall that held the check past completion1 cannot turn the answer.
        let aliveMidDelay = gone.map { $0 > midpoint } ?? aliveAtCheck
        var extra = Metrics()
        extra[DanceMetric.aliveMidDelay] = aliveMidDelay ? 1 : 0
        if let c2, let c1 { extra[DanceMetric.completion1AfterCompletion2S] = c1 - c2 }
        control.stop()
        if let c1, let gone, trial.lifetime.releasedWithinGrace == true {
            extra[DanceMetric.deinitAfterCompletion1S] = gone - c1
            extra[DanceMetric.deinitAfterCompletion1ControlDelayS] = control.delay(from: c1, to: gone)
        }
        extra.merge(control.metrics)

        let order = trial.log.events.map(\.label).filter(HeapStackDelayed.articleOrder.contains)
        var evidence = "order " + order.joined(separator: " → ")
        if let gap = extra[DanceMetric.completion1AfterCompletion2S] { evidence += "; completion1 \(Format.seconds(gap)) after completion2" }
        if let after = extra[DanceMetric.deinitAfterCompletion1S] { evidence += ", deinit \(Format.seconds(after)) after completion1" }
        evidence += "; the pending block held foo (\(trial.probe.whilePending?.description ?? "?")), the stored completions "
            + (trial.probe.onceStored.map { $0 == .zero ? "nothing" : $0.description } ?? "?")
            + "; " + trial.releaseSummary
        return trial.record(trial.releaseOutcome, extra: extra, evidence: evidence)
    }

    /// The seed's printed lines, in its order (`两秒钟后`, "two seconds later", is `after-delay`).
    static let articleOrder = ["completion2", "after-delay", "completion1", "deinit"]
}
