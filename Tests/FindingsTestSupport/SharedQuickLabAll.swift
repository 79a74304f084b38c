import Foundation
import LabHarness
import Synchronization

/// One `lab all --quick --json FILE` run of every experiment per test process, shared by the
/// findings suites (each judges its experiment's `--quick` report from it) and by
/// LabRunnerTests' end-to-end and projector tests (`QuickLabAll`), so that the suite pays for
/// one quick run of each experiment instead of two.
///
/// The run lives in a folder named after this test process (`folder`): `results.json`, the
/// document `lab all` wrote, and `run.json`, how the `lab` process ended (`Run`). Whichever
/// suite asks first runs `lab all` and writes both (`files(lab:)`); the others read them. The
/// folder is removed when the test process exits; another process (a `swift test --parallel`
/// worker) never reads it, since its name holds the process id.
public enum SharedQuickLabAll {
    /// How the `lab all` process ended: what the end-to-end test checks beside the document.
    public struct Run: Codable, Sendable {
        public var exitCode: Int32?
        public var outcome: String
        public var evidence: String
        public var stdout: String
        public var stderr: String

        public init(_ run: ChildRun) {
            exitCode = run.exitCode
            outcome = run.outcome.rawValue
            evidence = run.evidence
            stdout = run.stdout
            stderr = run.stderr
        }
    }

    /// `lab-quick-all-PID` in the temporary directory.
    public static var folder: URL {
        URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("lab-quick-all-\(getpid())")
    }

    /// The shared run's reports by experiment name, read once for this target (`lab all` run
    /// first when no suite of this process has run it); a failure says why there is none.
    static let experiments = Mutex<Result<[String: ExperimentReport], Unusable>?>(nil)

    struct Unusable: Error, CustomStringConvertible { let description: String }

    /// The `--quick` report of `experiment` from the shared run, or `nil` when the run has none
    /// the suite can judge: `lab all` failed or left the experiment out, or the machine broke
    /// one of its trials (`Outcome.judgesNothing`). The suite then runs the experiment itself,
    /// as it did before the run was shared (and again while the machine breaks a trial, where
    /// it did so).
    public static func report(of experiment: ExperimentDefinition, lab: String) -> ExperimentReport? {
        let reports = experiments.withLock { cached in
            if let cached { return cached }
            let loaded = Result { try load(lab: lab) }.mapError { Unusable(description: "\($0)") }
            cached = loaded
            return loaded
        }
        guard case .success(let byName) = reports, let report = byName[experiment.name],
            !report.variants.contains(where: \.outcome.judgesNothing)
        else { return nil }
        return report
    }

    /// Held while the folder is read or written, so that `lab all` runs once.
    private static let folderLock = Mutex(())

    /// The shared run, after running `lab all` into the folder when this process has not yet:
    /// how the `lab` process ended, and the bytes of the document it wrote.
    public static func files(lab: String) throws -> (run: Run, results: Data) {
        try folderLock.withLock { _ in
            let results = folder.appendingPathComponent("results.json")
            let record = folder.appendingPathComponent("run.json")
            let manager = FileManager.default
            if !manager.fileExists(atPath: results.path) || !manager.fileExists(atPath: record.path) {
                try manager.createDirectory(at: folder, withIntermediateDirectories: true)
                atexit { try? FileManager.default.removeItem(at: SharedQuickLabAll.folder) }
                let run = try ChildProcess.run(
                    ChildSpec(executable: lab, arguments: ["all", "--quick", "--json", results.path], budget: 120))
                try JSONEncoder().encode(Run(run)).write(to: record)
            }
            return (try JSONDecoder().decode(Run.self, from: Data(contentsOf: record)), try Data(contentsOf: results))
        }
    }

    /// The shared run's reports by experiment name.
    static func load(lab: String) throws -> [String: ExperimentReport] {
        struct Document: Decodable { var experiments: [ExperimentReport] }
        let document = try JSONDecoder().decode(Document.self, from: files(lab: lab).results)
        return Dictionary(document.experiments.map { ($0.experiment, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
