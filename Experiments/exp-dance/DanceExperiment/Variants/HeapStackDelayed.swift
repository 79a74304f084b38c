import Dispatch
import LabHarness

/// The article's `Foo` in Swift: `init` calls `completion2(self)`, which schedules `completion1(foo)`
/// on the main queue `delay` seconds later. Neither stored completion captures the object; the
/// delayed block captures `foo`, the parameter, which keeps it alive until the block has run: the
/// article's printed order. The `trial` lines are the lab's measurement, not the article's code.
final class Foo: @unchecked Sendable {  // used only on the main thread (the trial's body and the main queue)
    typealias Completion = (Foo) -> Void
    var completion1: Completion?
    var completion2: Completion?
    private let onDeinit: () -> Void

    init(delay: Double, trial: OwnerTrial) {
        onDeinit = trial.ownerDeinit
        trial.watch(self)
        trial.probe.created(on: self, Foo.makeCompletion2(delay: delay, trial: trial))
        completion1 = { [context = trial.context] _ in context.event("completion1") }
        completion2 = Foo.makeCompletion2(delay: delay, trial: trial)
        trial.probe.stored(on: self)
        completion2?(self)
    }

    deinit { onDeinit() }  // the article's dealloc, which logs "deinit": the trial times the release here

    static func makeCompletion2(delay: Double, trial: OwnerTrial) -> Completion {
        { [context = trial.context, probe = trial.probe] foo in
            context.event("completion2")
            probe.pending(on: foo) {
                DispatchQueue.main.asyncAfter(deadline: .now() + delay) {
                    context.event("after-delay")
                    foo.completion1?(foo)  // the parameter, captured by this block, plays strongSelf
                }
            }
        }
    }
}

/// `heap-stack-delayed`: the article's demo, timed; the deinit is judged less what a same-moment
/// control lost to the machine.
enum HeapStackDelayed {
    /// The article's printed lines, in its order (`两秒钟后`, "two seconds later", is `after-delay`).
    static let articleOrder = ["completion2", "after-delay", "completion1", "deinit"]
    /// dispatch_after never fires early; 2 % covers the two clocks being read a moment apart.
    static let onTime = Threshold("completion1 after completion2 at least", 98, "% of the delay")
    /// Far below the delay: nothing but the pending block held foo.
    static let prompt = Threshold("deinit after completion1 under", 50, "% of the delay")
    /// Where the check that only the pending block keeps foo alive falls: well inside the delay.
    static let aliveCheck = Threshold("foo checked alive at", 50, "% of the delay")

    static func run(_ context: VariantContext) -> VariantRecord {
        let trial = OwnerTrial(context, owner: "foo")
        let delay = trial.parameters.delay
        do {
            // The article's `__autoreleasing Foo *foo = [Foo new];` in a scope that ends at once.
            let foo = Foo(delay: delay, trial: trial)
            trial.endScope(of: foo)
        }
        trial.scopeClosed()
        let start = context.instant(of: "completion2") ?? trial.now()
        // Inside the delay: the pending block should be the one thing keeping foo alive.
        let checkAt = start + aliveCheck.value / 100 * delay
        trial.runMainQueue(until: checkAt)
        let aliveAtCheck = trial.isAlive
        trial.awaitRelease(from: start + delay)

        // Alive at the check, judged from the release's own timestamp when there is one: a machine
        // stall that held the check past completion1 cannot turn the answer.
        let aliveMidDelay = trial.releasedAt.map { $0 > checkAt } ?? aliveAtCheck
        // Both instants as taken, on one clock: completion1's when its event was logged, the
        // release's when foo's tag was destroyed.
        let c1 = context.instant(of: "completion1"), gone = trial.releasedAt
        let gap = c1.map { $0 - start }, late = gone.flatMap { g in c1.map { g - $0 } }
        let machine = c1.flatMap { c in gone.map { context.machineDelay(from: c, to: $0) } } ?? 0
        trial.metrics[DanceMetric.aliveMidDelay] = aliveMidDelay ? 1 : 0
        trial.metrics[DanceMetric.completion1AfterCompletion2S] = gap
        if trial.released == true, let late, late >= 0 {
            trial.metrics[DanceMetric.deinitAfterCompletion1S] = late
            trial.metrics[DanceMetric.deinitAfterCompletion1ControlDelayS] = machine
        }
        let outcome = order(
            released: trial.released == true, completion1: c1, releasedAt: gone, machineDelay: machine, delay: delay)
        let gapValue = gap ?? 0

        let seen = context.events.map(\.label).filter(articleOrder.contains)
        let pending = trial.probe.whilePending ?? .zero, stored = trial.probe.onceStored
        let inOrder = seen == articleOrder && gapValue >= onTime.value / 100 * delay
        let pendingHeld = pending.strong > 0 && stored == .zero && aliveMidDelay
        let held =
            "the pending block held \(pending), the stored completions \(stored?.description ?? "?")"
            + " (reference counts)"
        let mechanism: Evidence =
            outcome == "released-early"
            ? .when(pending.strong == 0, held + ": nothing kept foo alive until completion1")
            : .all([
                .when(inOrder, "order " + seen.joined(separator: " → ")),
                .when(pendingHeld, held + ", and foo was alive at the check (\(aliveCheck))"),
            ])

        let ran = c1 == nil ? "completion1 never ran" : "completion1 \(seconds: gapValue) after completion2"
        let deinitAfter = late.map { $0 >= 0 ? ", deinit \(seconds: $0) after completion1" : "" } ?? ""
        let stall = machine >= 0.005 ? " (\(seconds: machine) of it a stall a same-moment control saw too)" : ""
        let evidence = "\(ran) (delay \(seconds: delay))\(deinitAfter)\(stall); foo \(trial.releaseSummary)"
        return trial.record(outcome, mechanism: mechanism, evidence: evidence)
    }

    /// The outcome rule, from two instants of `MonotonicClock` taken at the events themselves:
    /// foo goes right after completion1 (`completed`), not before it (`released-early`), not long
    /// after it, less what a same-moment control lost (`released-late`); `leaked` if it stayed.
    /// A release that follows completion1 in program order is never early: the instants are
    /// compared as taken, never rounded or re-based first.
    static func order(
        released: Bool, completion1: Double?, releasedAt: Double?, machineDelay: Double, delay: Double
    ) -> Outcome {
        guard released, let releasedAt else { return .leaked }
        guard let completion1, releasedAt >= completion1 else { return "released-early" }
        return releasedAt - completion1 - machineDelay >= prompt.value / 100 * delay ? "released-late" : .completed
    }
}
