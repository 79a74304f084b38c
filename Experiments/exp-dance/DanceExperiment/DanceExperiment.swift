import LabHarness

/// exp-dance's variants by name (the command line's and the JSON's), for declarations and tests.
public enum DanceVariant: String, CaseIterable, Sendable {
    case strongCapture = "strong-capture", weakStrong = "weak-strong", heapStack = "heap-stack", heapStackDelayed =
        "heap-stack-delayed"
    case hiddenAPICycle = "hidden-api-cycle", hiddenAPIFixed = "hidden-api-fixed", unownedAfterRelease =
        "unowned-after-release"
}

/// exp-dance, after ChenYilong's iOSBlog article "Heap-Stack Dance" and its `Foo.m` demo: one
/// declaration here and one body in `Variants/` per variant; `OwnerTrial` does the measuring.
public let danceExperiment = ExperimentDefinition(
    name: "dance",
    executable: "exp-dance",
    question: "Does a stored closure keep its owner alive? Weak-strong dance versus heap-stack dance",
    about: """
        Each variant builds an owner that stores a closure, lets the owner's scope end, and measures what the \
        closure captured (the owner's reference counts when it is created and once stored), whether and when the \
        owner was released, and the order of events. heap-stack-delayed is the article's Foo (completion1 --delay \
        seconds after completion2). An owner alive --grace seconds after its scope counts as leaked. \
        unowned-after-release traps on purpose, in a process of its own.
        """,
    flags: [
        .seconds(
            "delay", default: 2, quick: 0.5, range: 0.01...30,
            help: "how long the article's dispatch_after waits before completion1 (and the weak-strong retry)"),
        .seconds(
            "grace", default: 0.5, quick: 0.25, range: 0.05...30,
            help: "how long an owner may outlive its scope before it counts as leaked"),
    ],
    variants: [
        Variant(
            DanceVariant.strongCapture, "a closure stored on the owner captures self strongly",
            expect: [
                .expected(.leaked, "the owner and its closure hold each other: a cycle, never released"),
                .forbidden(.completed, "released: the closure did not hold its owner"),
            ],
            claim: Claim(
                "dance.strong-capture-leaks",
                "a closure stored on its owner that captures the owner strongly is a cycle: the owner is never released"
            ),
            time: .seconds(\DanceParameters.leakTime), body: StrongCapture.run),
        Variant(
            DanceVariant.weakStrong, "[weak self] then guard let self, in a stored closure and in delayed work",
            expect: [
                .expected(.completed, "released when its scope ended; the delayed work found nil"),
                .forbidden(.leaked, "a weak capture kept its owner alive"),
            ],
            claim: Claim(
                "dance.weak-strong-releases",
                "[weak self] + guard let self: the owner goes when its scope ends, and delayed work later finds nil"),
            time: .seconds(\DanceParameters.delayedTime), body: WeakStrong.run),
        Variant(
            DanceVariant.heapStack, "the stored closure takes the owner as a parameter and captures nothing",
            expect: [
                .expected(.completed, "released when its scope ended, with no weak/strong boilerplate"),
                .forbidden(.leaked, "a closure that captures nothing kept its owner alive"),
            ],
            claim: Claim(
                "dance.heap-stack-releases",
                "a closure that takes its owner as a parameter captures nothing; the owner goes when its scope ends"),
            time: .seconds(\DanceParameters.releaseTime), body: HeapStack.run),
        Variant(
            DanceVariant.heapStackDelayed,
            "the article's Foo: completion2(self) schedules completion1(foo) after --delay",
            expect: [
                .expected(.completed, "released right after the delayed completion1 ran"),
                .forbidden(.leaked, "the parameter's capture outlived the delayed block"),
                .forbidden("released-early", "foo went before the delayed block ran: nothing held it"),
                .forbidden("released-late", "foo outlived the delayed block: something else held it"),
            ],
            claim: Claim(
                "dance.heap-stack-delayed-order",
                "the article's order: completion2, the delay, completion1, deinit (the delayed block's parameter keeps foo alive until it has run)",
                thresholds: [HeapStackDelayed.onTime, HeapStackDelayed.prompt, HeapStackDelayed.aliveCheck]),
            time: .seconds(\DanceParameters.delayedTime), instruments: [.stallWatch], body: HeapStackDelayed.run),
        Variant(
            DanceVariant.hiddenAPICycle, "an API stores the caller's action; the action names the object",
            expect: [
                .expected(.leaked, "a cycle that nothing at the call site shows"),
                .forbidden(.completed, "released: the stored action did not hold the screen"),
            ],
            time: .seconds(\DanceParameters.leakTime), body: HiddenAPI.runCycle),
        Variant(
            DanceVariant.hiddenAPIFixed, "the API passes the object as the action's first parameter",
            expect: [
                .expected(.completed, "released when its scope ended: the caller had no need to capture it"),
                .forbidden(.leaked, "the fixed API still leaked"),
            ],
            time: .seconds(\DanceParameters.releaseTime), body: HiddenAPI.runFixed),
        Variant(
            DanceVariant.unownedAfterRelease, "an [unowned self] handler is called after its owner is gone",
            expect: [
                .expected(.crashed, "the runtime trapped on the dead unowned reference"),
                .forbidden(.completed, "reading a released unowned reference did not trap"),
            ],
            claim: Claim(
                "dance.unowned-traps-after-release",
                "an [unowned self] closure called after its owner was released traps with the runtime's message"),
            time: .seconds(\DanceParameters.trapTime), body: UnownedAfterRelease.run),
    ],
    findings: [
        Finding(
            "dance.hidden-api-cycle",
            claim:
                "an API that stores the caller's action leaks an object the action names; passing the object as a parameter does not",
            needs: [DanceVariant.hiddenAPICycle, .hiddenAPIFixed], evaluate: DanceVerdicts.hiddenAPICycle)
    ],
    columns: DanceReport.columns,
    defaultJobs: 4,
    extraSections: DanceReport.sections,
    parameters: DanceParameters.self
)
