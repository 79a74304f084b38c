import LabHarness

/// exp-callback's variants by name: the declaration, the verdicts, the report and the tests
/// all refer to these cases, so a rename fails to compile instead of showing "—".
public enum CallbackVariant: String, CaseIterable, VariantName {
    case syncReturn = "sync-return"
    case callback
    case completionHandler = "completion-handler"
    case delegateCompletion = "delegate-completion"
    case forgottenHandler = "forgotten-handler"
    case doubleCall = "double-call"
    case asyncBridge = "async-bridge"
    case asyncLeak = "async-leak"
    case asyncDouble = "async-double"
}

/// exp-callback's options, read once, the numbers derived from them, and the trial limits.
public struct CallbackParameters: Sendable {
    /// Seconds the app's profile lookup takes (`--latency`).
    public var latency: Seconds

    public init(latency: Seconds) { self.latency = latency }
    public init(_ options: ParsedOptions) { latency = options.double("latency") }

    /// How long the library waits for a completion handler before it goes on without it.
    /// Twice the lookup plus a quarter second: a well-behaved app is never cut off, even on a
    /// loaded machine, and a forgetful one is caught in a few seconds at most.
    public var patience: Seconds { 2 * latency + 0.25 }
    /// How long the delegate thinks before it decides.
    public var decisionDelay: Seconds { latency / 4 }
    /// When an incoming message arrives during the lookup.
    public var incomingAfter: Seconds { latency / 4 }
    /// How long after the first call the double-calling app calls again.
    public var secondCallGap: Seconds { max(0.02, latency / 5) }
    /// The longest any scenario waits for something that should happen.
    public var deadline: Seconds { latency + patience + 1.5 }
    /// A child trial's budget: generous; a trial that needs it has failed anyway.
    public var budget: Seconds { 2 * deadline + 5 }
    /// The harness kills a child that takes no step for this long: only a library that waits
    /// forever gets there (its own watchdog fires after `patience`).
    public var stallWindow: Seconds { patience + latency + 2 }

    /// Every variant: the budget and stall window above, progress counted in steps; each
    /// variant gives its own estimate.
    static func limits(estimate: @escaping @Sendable (CallbackParameters) -> Seconds) -> TrialLimits {
        TrialLimits(budget: { CallbackParameters($0).budget }, stallWindow: { CallbackParameters($0).stallWindow },
                    estimate: { estimate(CallbackParameters($0)) }, progressMetric: "steps")
    }
}
