import LabHarness

/// exp-dance: does a stored closure keep its owner alive? The weak-strong dance against the
/// heap-stack dance (pass the owner in as a parameter instead of capturing it), after
/// ChenYilong's iOSBlog article "Heap-Stack Dance" and its `Foo.m` demo.
///
/// Every variant creates an owner in a scope that ends at once, measures what the owner's
/// closure captured (by the change in the owner's strong, weak and unowned reference counts when
/// the closure is created and once it is stored), marks the scope's end, and then asks the
/// harness's `ReleaseTracker` whether and when the owner went (exact times from a `LifetimeTag`
/// stored in it). A leak is an owner the tracker still sees alive after `--grace` seconds.
public let danceExperiment = ExperimentDefinition(
    name: "dance",
    executable: "exp-dance",
    question: "Does a stored closure keep its owner alive? Weak-strong dance versus heap-stack dance",
    about: """
        Each variant builds an owner that stores a closure, lets the owner's scope end, and measures \
        what the closure captured (the owner's strong/weak/unowned reference counts when the closure is \
        created and once it is stored), whether and when the owner was released (ReleaseTracker, exact \
        deinit times from a LifetimeTag), and the order of events. heap-stack-delayed is the article's Foo: \
        completion2 schedules completion1 on the main queue --delay seconds later (2 s, as in the article). \
        An owner still alive --grace seconds after its scope ended counts as leaked. unowned-after-release \
        traps on purpose, in a child process of its own.
        """,
    flags: [
        .seconds("delay", default: 2, quick: 0.5, range: 0.01...30,
                 help: "how long the article's dispatch_after waits before completion1 (and the weak-strong retry)"),
        .seconds("grace", default: 0.5, quick: 0.25, range: 0.05...30,
                 help: "how long an owner may outlive its scope before it counts as leaked"),
    ],
    variants: [
        Variant(DanceVariant.strongCapture, summary: "a closure stored on the owner captures self strongly",
                expect: [OutcomeExpectation(.leaked, .expected, "the owner and its closure hold each other: a cycle, never released"),
                         OutcomeExpectation(.completed, .forbidden, "released: the closure did not hold its owner")],
                limits: DanceParameters.leakLimits,
                body: StrongCapture.run),
        Variant(DanceVariant.weakStrong, summary: "[weak self] then guard let self, in a stored closure and in delayed work",
                expect: [OutcomeExpectation(.completed, .expected, "released when its scope ended; the delayed work found nil"),
                         OutcomeExpectation(.leaked, .forbidden, "a weak capture kept its owner alive")],
                limits: DanceParameters.delayedLimits,
                body: WeakStrong.run),
        Variant(DanceVariant.heapStack, summary: "the stored closure takes the owner as a parameter and captures nothing",
                expect: [OutcomeExpectation(.completed, .expected, "released when its scope ended, with no weak/strong boilerplate"),
                         OutcomeExpectation(.leaked, .forbidden, "a closure that captures nothing kept its owner alive")],
                limits: DanceParameters.releaseLimits,
                body: HeapStack.run),
        Variant(DanceVariant.heapStackDelayed, summary: "the article's Foo: completion2(self) schedules completion1(foo) after --delay",
                expect: [OutcomeExpectation(.completed, .expected, "released right after the delayed completion1 ran"),
                         OutcomeExpectation(.leaked, .forbidden, "the parameter's capture outlived the delayed block")],
                limits: DanceParameters.delayedLimits,
                body: HeapStackDelayed.run),
        Variant(DanceVariant.hiddenAPICycle, summary: "an API stores the caller's action; the action names the object",
                expect: [OutcomeExpectation(.leaked, .expected, "a cycle that nothing at the call site shows"),
                         OutcomeExpectation(.completed, .forbidden, "released: the stored action did not hold the screen")],
                limits: DanceParameters.leakLimits,
                body: HiddenAPI.runCycle),
        Variant(DanceVariant.hiddenAPIFixed, summary: "the API passes the object as the action's first parameter",
                expect: [OutcomeExpectation(.completed, .expected, "released when its scope ended: the caller had no need to capture it"),
                         OutcomeExpectation(.leaked, .forbidden, "the fixed API still leaked")],
                limits: DanceParameters.releaseLimits,
                body: HiddenAPI.runFixed),
        Variant(DanceVariant.unownedAfterRelease, summary: "an [unowned self] handler is called after its owner is gone",
                expect: [OutcomeExpectation(.crashed, .expected, "the runtime trapped on the dead unowned reference"),
                         OutcomeExpectation(.completed, .forbidden, "reading a released unowned reference did not trap")],
                limits: DanceParameters.trapLimits,
                body: UnownedAfterRelease.run),
    ],
    findings: [
        Finding("dance.strong-capture-leaks",
                claim: "a closure stored on its owner that captures the owner strongly is a cycle: the owner is never released",
                needs: [DanceVariant.strongCapture], evaluate: DanceVerdicts.strongCaptureLeaks),
        Finding("dance.weak-strong-releases",
                claim: "[weak self] + guard let self: the owner goes when its scope ends, and delayed work later finds nil",
                needs: [DanceVariant.weakStrong], evaluate: DanceVerdicts.weakStrongReleases),
        Finding("dance.heap-stack-releases",
                claim: "a closure that takes its owner as a parameter captures nothing; the owner goes when its scope ends",
                needs: [DanceVariant.heapStack], evaluate: DanceVerdicts.heapStackReleases),
        Finding("dance.heap-stack-delayed-order",
                claim: "the article's order: completion2, the delay, completion1, deinit (the delayed block's parameter keeps foo alive until it has run)",
                needs: [DanceVariant.heapStackDelayed], evaluate: DanceVerdicts.heapStackDelayedOrder),
        Finding("dance.hidden-api-cycle",
                claim: "an API that stores the caller's action leaks an object the action names; passing the object as a parameter does not",
                needs: [DanceVariant.hiddenAPICycle, .hiddenAPIFixed], evaluate: DanceVerdicts.hiddenAPICycle),
        Finding("dance.unowned-traps-after-release",
                claim: "an [unowned self] closure called after its owner was released traps with the runtime's message",
                needs: [DanceVariant.unownedAfterRelease], evaluate: DanceVerdicts.unownedTraps),
    ],
    columns: DanceReport.columns,
    defaultJobs: 4,
    extraSections: DanceReport.sections
)
