import Foundation
import LabHarness

/// Everything `lab all` measured, as one JSON document: every experiment's schema-1 report,
/// the platform and the lab's version, and whether the run finished.
public struct LabDocument: Sendable, Codable, Equatable {
    /// Identifies the file as the lab's; `lab report` refuses anything else.
    public var kind: String
    public var schema: Int
    public var labVersion: String
    public var platform: PlatformInfo
    /// False when the run was interrupted or an experiment produced no report.
    public var complete: Bool
    public var quick: Bool
    public var elapsedSeconds: Double
    public var experiments: [ExperimentReport]
    /// Experiments that ran but left no report (crashed, killed, interrupted), with why.
    public var failures: [ExperimentFailure]

    public static let kindValue = "runloop-lab.results"
    public static let schemaVersion = 1

    public init(
        platform: PlatformInfo = .current, complete: Bool, quick: Bool, elapsedSeconds: Double,
        experiments: [ExperimentReport], failures: [ExperimentFailure]
    ) {
        kind = LabDocument.kindValue
        schema = LabDocument.schemaVersion
        labVersion = LabVersion.current
        self.platform = platform
        self.complete = complete
        self.quick = quick
        self.elapsedSeconds = Metrics.round(elapsedSeconds)
        self.experiments = experiments
        self.failures = failures
    }

    enum CodingKeys: String, CodingKey {
        case kind, schema, platform, complete, quick, experiments, failures
        case labVersion = "lab_version"
        case elapsedSeconds = "elapsed_s"
    }

    public func jsonData() throws -> Data {
        try ExperimentReport.encoder(pretty: true).encode(self)
    }

    /// Reads a lab document, or a single experiment's schema-1 report (as `exp-NAME --json`
    /// writes it), which becomes a document of one experiment.
    public static func read(_ data: Data) throws -> LabDocument {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw DocumentError.notJSON
        }
        if let kind = object["kind"] as? String {
            guard kind == kindValue else { throw DocumentError.otherKind(kind) }
            let schema = object["schema"] as? Int ?? -1
            guard schema == schemaVersion else { throw DocumentError.otherSchema(schema) }
            return try JSONDecoder().decode(LabDocument.self, from: data)
        }
        if object["experiment"] != nil {
            let schema = object["schema"] as? Int ?? -1
            guard schema == ExperimentReport.schemaVersion else { throw DocumentError.otherSchema(schema) }
            let report = try JSONDecoder().decode(ExperimentReport.self, from: data)
            return LabDocument(
                platform: report.platform, complete: true, quick: report.parameters["quick"] == .flag(true),
                elapsedSeconds: 0, experiments: [report], failures: [])
        }
        throw DocumentError.otherKind("unknown")
    }

    public enum DocumentError: Error, CustomStringConvertible {
        case notJSON
        case otherKind(String)
        case otherSchema(Int)

        public var description: String {
            switch self {
            case .notJSON: return "is not JSON"
            case .otherKind(let kind):
                return
                    "is not a lab results file (kind '\(kind)'; expected '\(LabDocument.kindValue)' or an experiment's --json report)"
            case .otherSchema(let schema):
                return "has schema \(schema); this lab reads schema \(LabDocument.schemaVersion)"
            }
        }
    }
}

/// An experiment that left no report, and why.
public struct ExperimentFailure: Sendable, Codable, Equatable {
    public var experiment: String
    public var outcome: String
    public var evidence: String

    public init(experiment: String, outcome: String, evidence: String) {
        self.experiment = experiment
        self.outcome = outcome
        self.evidence = evidence
    }
}

public enum LabVersion {
    public static let current = "0.1.0"
}
