import Foundation
import LabHarness
import LabHarnessXCTest
import LabRunner

/// One `lab all --quick --json FILE` run of the real experiments, shared by the tests that read
/// it (the end-to-end check and the projector's width), so the suite pays for it once. It runs
/// the first time a test asks for it; its folder is gone by the time a test reads it.
struct QuickLabAll: Sendable {
    /// The `lab` process: exit status, stdout, stderr.
    let run: ChildRun
    /// The JSON file's bytes, and the document read from them.
    let data: Data
    let document: LabDocument

    static let shared: Result<QuickLabAll, any Error> = Result {
        let directory = try temporaryDirectory("quick-all")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("results.json")
        let run = try ChildProcess.run(
            ChildSpec(
                executable: BuiltProducts.executable("lab"),
                arguments: ["all", "--quick", "--json", file.path], budget: 120))
        let data = try Data(contentsOf: file)
        return QuickLabAll(run: run, data: data, document: try LabDocument.read(data))
    }
}
