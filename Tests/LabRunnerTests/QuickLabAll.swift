import FindingsTestSupport
import Foundation
import LabHarness
import LabHarnessXCTest
import LabRunner

/// The one `lab all --quick --json FILE` run of the real experiments that this test process
/// shares with the findings suites (FindingsTestSupport's `SharedQuickLabAll`, which runs it
/// when no suite has yet), read by the end-to-end check and the projector's width.
struct QuickLabAll: Sendable {
    /// How the `lab` process ended.
    let run: SharedQuickLabAll.Run
    /// The JSON file's bytes, and the document read from them.
    let data: Data
    let document: LabDocument

    static let shared: Result<QuickLabAll, any Error> = Result {
        let (run, data) = try SharedQuickLabAll.files(lab: BuiltProducts.executable("lab"))
        return QuickLabAll(run: run, data: data, document: try LabDocument.read(data))
    }
}
