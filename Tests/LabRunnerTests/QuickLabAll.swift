import Foundation
import LabHarness
import LabHarnessXCTest
import LabRunner

/// One `lab all --quick --json FILE` run of the real experiments, shared by the tests that read
/// it (the end-to-end check and the projector's width) and by the findings suites, so the test
/// process pays for it once. The findings suites' `SharedQuickLabAll` (FindingsTestSupport)
/// keeps it in a folder named after this process: `results.json`, the document `lab all`
/// wrote, and `run.json`, how the `lab` process ended. When a findings suite ran it first, this
/// reads that folder; otherwise it runs `lab all` and writes the same two files (keep the two in
/// step). The folder is removed when the test process exits.
struct QuickLabAll: Sendable {
    /// How the `lab` process ended (the fields of FindingsTestSupport's `SharedQuickLabAll.Run`).
    struct Run: Codable, Sendable {
        var exitCode: Int32?
        var outcome: String
        var evidence: String
        var stdout: String
        var stderr: String
    }

    let run: Run
    /// The JSON file's bytes, and the document read from them.
    let data: Data
    let document: LabDocument

    /// `lab-quick-all-PID` in the temporary directory, as `SharedQuickLabAll.folder`.
    static var folder: URL {
        URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("lab-quick-all-\(getpid())")
    }

    static let shared: Result<QuickLabAll, any Error> = Result {
        let results = folder.appendingPathComponent("results.json")
        let record = folder.appendingPathComponent("run.json")
        if !FileManager.default.fileExists(atPath: results.path)
            || !FileManager.default.fileExists(atPath: record.path)
        {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            atexit { try? FileManager.default.removeItem(at: QuickLabAll.folder) }
            let run = try ChildProcess.run(
                ChildSpec(
                    executable: BuiltProducts.executable("lab"),
                    arguments: ["all", "--quick", "--json", results.path], budget: 120))
            let written = Run(
                exitCode: run.exitCode, outcome: run.outcome.rawValue, evidence: run.evidence, stdout: run.stdout,
                stderr: run.stderr)
            try JSONEncoder().encode(written).write(to: record)
        }
        let data = try Data(contentsOf: results)
        let run = try JSONDecoder().decode(Run.self, from: Data(contentsOf: record))
        return QuickLabAll(run: run, data: data, document: try LabDocument.read(data))
    }
}
