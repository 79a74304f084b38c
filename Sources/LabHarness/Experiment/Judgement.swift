/// What the lab saw of a claim's mechanism: the cause, as opposed to the symptom.
///
/// "No timeout fired" is a symptom; "12 callers started and the stacks show 12 threads waiting
/// in a semaphore" is the mechanism that explains it. A verdict needs both: without the
/// mechanism seen, a symptom may have any cause (a thread limit, a machine that gave the trial
/// no CPU), so the claim is *not judged*, never reproduced.
public struct Evidence: Sendable, Equatable, Codable, CustomStringConvertible {
    /// Whether the mechanism was seen.
    public var seen: Bool
    /// What was seen, with its figures, or why it was not: "12 of 12 callers seen waiting in a
    /// semaphore (stacks)", "0 callers had started".
    public var what: String

    public init(seen: Bool, _ what: String) {
        self.seen = seen
        self.what = what
    }

    /// The mechanism was seen: `what` says how.
    public static func seen(_ what: String) -> Evidence { Evidence(seen: true, what) }
    /// The mechanism was not seen: `why` says what was looked at.
    public static func notSeen(_ why: String) -> Evidence { Evidence(seen: false, why) }
    /// `seen(what)` when `condition` holds, else `notSeen(otherwise)`.
    public static func when(_ condition: Bool, _ what: String, otherwise: String? = nil) -> Evidence {
        condition ? .seen(what) : .notSeen(otherwise ?? what)
    }

    /// Both mechanisms seen (the first one not seen says why).
    public static func all(_ parts: [Evidence]) -> Evidence {
        if let missing = parts.first(where: { !$0.seen }) { return missing }
        return .seen(parts.map(\.what).joined(separator: "; "))
    }

    public var description: String { what }
}

/// A figure a finding's verdict is judged against, named once and printed with the verdict: a
/// test asserts the verdict, never the number, so the number lives in one place.
public struct Threshold: Sendable, Equatable, CustomStringConvertible {
    /// What it bounds, in a few words: `slow growth`, `on time`.
    public var name: String
    public var value: Double
    /// Unit printed after the value: `×`, `ms`, `s`, `%` (empty for a count).
    public var unit: String

    public init(_ name: String, _ value: Double, _ unit: String = "") {
        self.name = name
        self.value = value
        self.unit = unit
    }

    /// `slow growth 5×`, `on time 50 ms`.
    public var description: String {
        let number = Format.number(value)
        return unit.isEmpty
            ? "\(name) \(number)"
            : (unit == "×" || unit == "%" ? "\(name) \(number)\(unit)" : "\(name) \(number) \(unit)")
    }
}

/// A claim about one variant, with the id that is the lab's contract: it holds when the
/// variant's outcome is graded `expected` and the variant saw its mechanism (see
/// `VariantRecord.mechanism`). It is reported among the findings, like a `Finding`.
public struct Claim: Sendable, Equatable {
    public var id: String
    /// The claim in one line, for `--help` and reports.
    public var text: String
    /// The figures the variant's outcome rule judges against, stated once; the report prints
    /// them after the claim's sentence (and in the JSON's `thresholds`).
    var thresholds: [Threshold]
    /// Why this run cannot set up the claim's premise (a premise sized from the machine's CPUs
    /// that cannot hold on this one), or `nil` when it can: the claim is then reported
    /// "not applicable to this run" with the reason, never judged.
    var premiseMissing: (@Sendable (ParsedOptions) -> String?)?

    public init(
        _ id: String, _ text: String, thresholds: [Threshold] = [],
        premiseMissing: (@Sendable (ParsedOptions) -> String?)? = nil
    ) {
        self.id = id
        self.text = text
        self.thresholds = thresholds
        self.premiseMissing = premiseMissing
    }

    public static func == (a: Claim, b: Claim) -> Bool {
        a.id == b.id && a.text == b.text && a.thresholds == b.thresholds
    }
}

/// The metrics the harness itself writes into a variant's record, by their names in the JSON
/// contract (`metrics` in schema 1). An experiment's own names are `String` constants in one
/// table of its own (`DanceMetric`), spelled once; names use dots for grouping and a unit
/// suffix (`wait.p99_s`, `threads.peak`).
extension Metrics {
    /// The worst late wake-up of the trial's same-moment control (`StallWatch`), in ms.
    public static let controlStallMax = "control.stall_max_ms"
    /// The trial's wall time, in seconds.
    public static let wall = "wall_s"
    /// The signal that ended a crashed child.
    public static let signal = "signal"
    /// Threads alive in a child the harness killed.
    public static let threadsAtKill = "threads.at_kill"
}

/// An experiment's typed parameters: every flag parsed once into a value, with an enum for each
/// choice. The harness builds it once per process, from the options, and hands it to bodies
/// (`context.parameters()`), findings (`inputs.parameters()`) and trial times.
///
/// `init` throws a `UsageError` when flags that were each valid make no sense together (exit
/// 64, one line naming what is valid).
public protocol ExperimentParameters: Sendable {
    init(_ options: ParsedOptions) throws
    /// The variants a run without `--variant` covers: the definition's default plan
    /// (`standard`), as these parameters adjust it (by default, unchanged).
    func plan(_ standard: [String]) -> [String]
}

extension ExperimentParameters {
    public func plan(_ standard: [String]) -> [String] { standard }
}

/// The parameters of an experiment that declares none of its own.
public struct NoParameters: ExperimentParameters {
    public init(_ options: ParsedOptions) {}
}

/// How long a trial is expected to take; the harness derives its budget, stall window and
/// progress display from it, so a declaration states one duration instead of their arithmetic.
///
/// - budget: `expected × 3 + 10 s` (a 2-core machine under load stalls 30-500 ms at a time, and
///   a child's start-up is part of the budget), or the declared `budget`.
/// - stall window: `nil` unless the trial counts progress; then a child that reports no
///   progress for `stallWindow` is ended as `deadlock`, with every thread's stack.
public struct TrialTime: Sendable {
    public var expected: Seconds
    var budget: Seconds
    public var stallWindow: Seconds?
    /// The total the progress counter counts up to, if known (shown as `done/total`).
    var progressTotal: Int?

    public init(expected: Seconds, budget: Seconds? = nil, stallWindow: Seconds? = nil, progressTotal: Int? = nil) {
        self.expected = expected
        self.budget = budget ?? (expected * 3 + 10)
        self.stallWindow = stallWindow
        self.progressTotal = progressTotal
    }

    /// About `seconds`, budget derived.
    public static func about(_ seconds: Seconds) -> TrialTime { TrialTime(expected: seconds) }
}

/// How a variant's trial time is declared: a constant, or read from the experiment's typed
/// parameters (`.from { (p: PoolParameters) in p.block + 2 }`).
public struct TrialTiming: Sendable {
    let derive: @Sendable (any ExperimentParameters) -> TrialTime

    public init(_ derive: @escaping @Sendable (any ExperimentParameters) -> TrialTime) {
        self.derive = derive
    }

    /// The same time whatever the flags.
    public static func about(_ seconds: Seconds) -> TrialTiming { TrialTiming { _ in .about(seconds) } }

    /// The same time, budget and stall window whatever the flags.
    public static func fixed(_ time: TrialTime) -> TrialTiming { TrialTiming { _ in time } }

    /// A time read from the experiment's parameters.
    public static func from<P: ExperimentParameters>(_ time: @escaping @Sendable (P) -> TrialTime) -> TrialTiming {
        TrialTiming { parameters in
            guard let typed = parameters as? P else {
                preconditionFailure(
                    "trial time reads \(P.self), but the experiment's parameters are \(type(of: parameters))")
            }
            return time(typed)
        }
    }

    /// The expected seconds read from the experiment's parameters, budget derived.
    public static func seconds<P: ExperimentParameters>(_ seconds: @escaping @Sendable (P) -> Seconds) -> TrialTiming {
        from { (p: P) in .about(seconds(p)) }
    }
}

/// The instruments the harness starts around a variant's body and merges into its record, so a
/// body keeps only its lesson.
public struct Instruments: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// A same-moment control (`StallWatch`) at normal priority: `context.machineDelay(from:to:)`
    /// and the metric `control.stall_max_ms`.
    public static let stallWatch = Instruments(rawValue: 1 << 0)
    /// The control asks for real-time priority (for trials whose thread runs at real-time
    /// priority, which normal threads do not delay).
    public static let realtimeStallWatch = Instruments(rawValue: 1 << 1)
    /// The process's thread count sampled every 10 ms: `context.threads`, and the series
    /// `threads` (`[[t, count], ...]`) in the record.
    public static let threadTimeline = Instruments(rawValue: 1 << 2)
}
