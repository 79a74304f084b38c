import Foundation

/// A parameter's value as it appears in reports: a number, a string or a flag.
public enum ParameterValue: Sendable, Equatable, Codable, CustomStringConvertible {
    case number(Double)
    case text(String)
    case flag(Bool)

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let b = try? container.decode(Bool.self) {
            self = .flag(b)
        } else if let d = try? container.decode(Double.self) {
            self = .number(d)
        } else {
            self = .text(try container.decode(String.self))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let d): try container.encode(d)
        case .text(let s): try container.encode(s)
        case .flag(let b): try container.encode(b)
        }
    }

    public var description: String {
        switch self {
        case .number(let d): return Format.number(d)
        case .text(let s): return s
        case .flag(let b): return b ? "yes" : "no"
        }
    }

    public var number: Double? { if case .number(let d) = self { return d } else { return nil } }
}

/// A timestamped event in a variant's run, such as `completion2` or `deinit`.
public struct TimedEvent: Sendable, Equatable, Codable {
    /// Seconds since the variant's start.
    public var t: Seconds
    public var label: String
    /// The thread it happened on, when that matters.
    public var thread: String?

    /// An event for the report: `t` rounded to six significant digits, for reading.
    public init(t: Seconds, label: String, thread: String? = nil) {
        self.t = Metrics.round(t)
        self.label = label
        self.thread = thread
    }

    /// An event as the trial logged it, `t` unrounded, for the trial's own comparisons
    /// (`VariantContext.events`): rounding two close events can tie or swap them against an
    /// instant taken elsewhere.
    init(exact t: Seconds, label: String, thread: String?) {
        self.t = t
        self.label = label
        self.thread = thread
    }

    /// This event as the report keeps it (rounded).
    var rounded: TimedEvent { TimedEvent(t: t, label: label, thread: thread) }
}

/// One variant's result in a report (schema 1).
///
/// `name`, `outcome` and `metrics` are the schema's required fields. The rest are optional
/// extensions that the lab runner draws from: `grade` of the outcome, `trials` (outcome counts
/// when a variant ran more than once), `evidence` (one line that explains the outcome),
/// `series` (named lists of points, such as the thread timeline `[[t, count], ...]`), and
/// `events` (a timeline of labelled events), `stacks` (every thread's stack when the variant was
/// declared deadlocked or stalled, innermost frame first).
public struct VariantReport: Sendable, Equatable, Codable {
    public var name: String
    public var outcome: Outcome
    public var grade: Grade?
    public var trials: [String: Int]?
    public var metrics: Metrics
    public var evidence: String?
    public var series: [String: [[Double]]]?
    public var events: [TimedEvent]?
    public var stacks: [ThreadStack]?
    /// What the variant saw of its mechanism, when it declares a claim (an optional key of
    /// schema 1).
    public var mechanism: Evidence?

    public init(
        name: String, outcome: Outcome, grade: Grade? = nil, trials: [String: Int]? = nil,
        metrics: Metrics = Metrics(), evidence: String? = nil,
        series: [String: [[Double]]]? = nil, events: [TimedEvent]? = nil, stacks: [ThreadStack]? = nil,
        mechanism: Evidence? = nil
    ) {
        self.mechanism = mechanism
        self.name = name
        self.outcome = outcome
        self.grade = grade
        self.trials = trials
        self.metrics = metrics
        self.evidence = evidence
        self.series = series
        self.events = events
        self.stacks = stacks
    }

    /// A metric by name.
    public subscript(metric: String) -> Double? { metrics[metric] }
}

/// Whether a finding held in this run (schema 1).
public struct FindingReport: Sendable, Equatable, Codable {
    public var id: String
    /// False when the finding does not apply on this platform; such a finding never fails a run.
    public var applicable: Bool
    public var reproduced: Bool
    /// The measured figures behind the verdict, in one sentence.
    public var summary: String
    /// `false` when the finding applies but was neither reproduced nor refuted, and
    /// `notJudgedReason` says why (`summary` says it in words). Absent when the finding was
    /// judged (an optional key of schema 1; `reproduced` is then false, so a reader that knows
    /// only the older keys still sees a run that did not pass).
    public var judged: Bool?
    /// Why it was not judged (`not_judged_reason`, an optional key of schema 1): the machine broke
    /// a trial it reads, the mechanism was not seen, the run lacks what it compares, or the run
    /// was interrupted. Absent when judged, and in reports written before the key existed.
    public var notJudgedReason: NotJudgedReason?
    /// The figures the verdict was judged against, by name (an optional key of schema 1).
    var thresholds: [String: Double]?

    enum CodingKeys: String, CodingKey {
        case id, applicable, reproduced, summary, judged, thresholds
        case notJudgedReason = "not_judged_reason"
    }

    public init(
        id: String, applicable: Bool, reproduced: Bool, summary: String, notJudgedReason: NotJudgedReason? = nil,
        thresholds: [String: Double]? = nil
    ) {
        self.id = id
        self.applicable = applicable
        self.reproduced = reproduced
        self.summary = summary
        self.judged = notJudgedReason == nil ? nil : false
        self.notJudgedReason = notJudgedReason
        self.thresholds = thresholds
    }

    /// Whether the finding applies and was neither reproduced nor refuted.
    public var notJudged: Bool { judged == false }

    /// What the verdict decided, from the typed fields (a report of an older writer, with
    /// `judged: false` and no reason, reads as the machine's).
    public var status: VerdictStatus {
        if notJudged { return .notJudged(notJudgedReason ?? .machineOutcome) }
        return reproduced ? .reproduced : .notReproduced
    }
}

/// One experiment run: the JSON object of schema 1.
public struct ExperimentReport: Sendable, Equatable, Codable {
    public var schema: Int
    public var experiment: String
    public var platform: PlatformInfo
    public var parameters: [String: ParameterValue]
    public var variants: [VariantReport]
    public var findings: [FindingReport]
    /// The points of a sweep, when the run was one (optional in schema 1; absent otherwise).
    public var sweep: [SweepPoint]?

    public static let schemaVersion = 1

    public init(
        experiment: String, platform: PlatformInfo = .current, parameters: [String: ParameterValue],
        variants: [VariantReport], findings: [FindingReport], sweep: [SweepPoint]? = nil
    ) {
        schema = ExperimentReport.schemaVersion
        self.experiment = experiment
        self.platform = platform
        self.parameters = parameters
        self.variants = variants
        self.findings = findings
        self.sweep = sweep
    }

    public func variant(_ name: String) -> VariantReport? { variants.first { $0.name == name } }
    public func finding(_ id: String) -> FindingReport? { findings.first { $0.id == id } }

    /// Every applicable finding reproduced: the run's exit status is 0.
    public var allReproduced: Bool { findings.allSatisfy { !$0.applicable || $0.reproduced } }

    /// The lab's JSON encoding: sorted keys, so the same run always gives the same bytes.
    public static func encoder(pretty: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    public func jsonData(pretty: Bool = true) throws -> Data {
        try ExperimentReport.encoder(pretty: pretty).encode(self)
    }

    /// Why `encoder` refused a value, in a few words for a one-line message: the value and
    /// where it sits (`inf at findings.0.thresholds.ceiling has no JSON form`), since the
    /// error's own description is a long dump of its context.
    public static func whyNotEncoded(_ error: any Error) -> String {
        guard case EncodingError.invalidValue(let value, let context) = error else {
            return UsageError.echo("\(error)")
        }
        let place = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        return UsageError.echo("\(value)" + (place.isEmpty ? "" : " at \(place)") + " has no JSON form")
    }

    public static func decode(_ data: Data) throws -> ExperimentReport {
        try JSONDecoder().decode(ExperimentReport.self, from: data)
    }
}
