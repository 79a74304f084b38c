import Foundation
import LabHarness
import LabHarnessXCTest
import LabRunner
import Synchronization
import XCTest

/// Ctrl-C during `lab all`: the running experiment is stopped, what finished is written (marked
/// incomplete), the exit status is 130, and no process of the run survives.
final class InterruptTests: XCTestCase {
    func testCtrlCWritesWhatFinishedAndLeavesNoProcess() throws {
        if let reason = ProcessTable.unavailableReason { throw XCTSkip(reason) }
        // Two of the quickest experiments, in the catalog's order, so the first has finished
        // well within a second when the second starts.
        let pair = LabCatalog.standard.entries.filter { ["dance", "callback"].contains($0.definition.name) }
        XCTAssertEqual(pair.count, 2, "the test interrupts the second of two experiments")
        guard pair.count == 2 else { return }
        let first = pair[0].command, second = pair[1].command
        let lab = try BuiltProducts.executable("lab")
        let directory = try temporaryDirectory("interrupt")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("results.json")

        // Press Ctrl-C once the second experiment has started (so the first has finished).
        let labPid = Atomic<Int32>(0)
        let pressed = Atomic<Bool>(false)
        NamedThread.start("test.ctrl-c") {
            let deadline = MonotonicClock.now() + 60
            while MonotonicClock.now() < deadline {
                let pid = labPid.load(ordering: .acquiring)
                if pid != 0,
                    ProcessTable.children(of: pid).contains(where: { $0.commandLine.contains(" \(second) --json") })
                {
                    MonotonicClock.sleep(for: 0.3)
                    kill(pid, SIGINT)
                    pressed.store(true, ordering: .releasing)
                    return
                }
                MonotonicClock.sleep(for: 0.02)
            }
        }
        let run = try ChildProcess.run(
            ChildSpec(
                executable: lab, arguments: ["all", "--quick", "--only", "\(first),\(second)", "--json", file.path],
                budget: 90,
                onStart: { labPid.store($0, ordering: .releasing) }))
        XCTAssertTrue(pressed.load(ordering: .acquiring), "the second experiment never started: \(run.stderr)")
        XCTAssertEqual(run.exitCode, 130, run.stderr)
        XCTAssertTrue(run.stderr.contains("interrupted"), run.stderr)

        let document = try LabDocument.read(Data(contentsOf: file))
        XCTAssertFalse(document.complete)
        XCTAssertEqual(document.experiments.map(\.experiment), [pair[0].definition.name], "what finished: \(first)")
        XCTAssertEqual(document.failures.map(\.outcome), ["interrupted"])
        XCTAssertTrue(run.stdout.contains("INCOMPLETE"), run.stdout)

        // Nothing the run started is left: not the experiment, not its trials.
        let deadline = MonotonicClock.now() + 3
        let mine = thisProcessAndItsAncestors()
        var leftovers = ProcessTable.all().filter { $0.commandLine.hasPrefix(lab + " ") && !mine.contains($0.pid) }
        while !leftovers.isEmpty && MonotonicClock.now() < deadline {
            MonotonicClock.sleep(for: 0.05)
            leftovers = ProcessTable.all().filter { $0.commandLine.hasPrefix(lab + " ") && !mine.contains($0.pid) }
        }
        XCTAssertEqual(leftovers.map(\.commandLine), [])
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: directory.path), ["results.json"], "no temporary files")
    }
}
