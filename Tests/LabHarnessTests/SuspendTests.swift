import Foundation
import LabHarness
import Synchronization
import XCTest

/// Ctrl-Z pauses the whole run and `fg` resumes it: `SIGTSTP` to the program reaches its trial
/// (which runs in a process group of its own), and the pause counts against no budget.
final class SuspendTests: XCTestCase {
    private static func state(_ pid: Int32) -> Character? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        return text[text.index(close, offsetBy: 2)...].first
    }

    func testStopReachesTheTrialAndContinueResumesIt() throws {
        guard FileManager.default.fileExists(atPath: "/proc/self/stat") else {
            throw XCTSkip("needs /proc to see a process's state")
        }
        let parent = Mutex<Int32>(0)
        let observed = Mutex<(trialStopped: Bool, parentStopped: Bool)>((false, false))
        let watcher = Thread {
            while parent.withLock({ $0 }) == 0 { usleep(10_000) }
            let pid = parent.withLock { $0 }
            // Wait for the trial child, then press Ctrl-Z (SIGTSTP to the program only, as the
            // terminal does to its foreground group, which the trial is not in).
            var trial: Int32?
            for _ in 0..<500 where trial == nil {
                trial = ProcessTable.children(of: pid).first?.pid
                usleep(10_000)
            }
            guard let trial else { return }
            kill(pid, SIGTSTP)
            var trialStopped = false, parentStopped = false
            for _ in 0..<200 {
                trialStopped = SuspendTests.state(trial) == "T"
                parentStopped = SuspendTests.state(pid) == "T"
                if trialStopped && parentStopped { break }
                usleep(10_000)
            }
            usleep(1_500_000)
            observed.withLock { $0 = (trialStopped, parentStopped) }
            kill(pid, SIGCONT)
        }
        watcher.start()
        // `ok` takes a second: still running when Ctrl-Z comes.
        let run = try ChildProcess.run(
            ChildSpec(
                executable: fixture(), arguments: ["--json", "--variant", "ok", "--hold", "1"],
                budget: 30, onStart: { pid in parent.withLock { $0 = pid } }))
        let seen = observed.withLock { $0 }
        XCTAssertTrue(seen.parentStopped, "Ctrl-Z stopped the program")
        XCTAssertTrue(seen.trialStopped, "and its trial, in a process group of its own")
        XCTAssertEqual(run.exitCode, 0, run.stderr)
        let report = try ExperimentReport.decode(Data(run.stdout.utf8))
        XCTAssertEqual(
            report.variant("ok")?.outcome, .completed, "resumed and finished: \(report.variant("ok")?.evidence ?? "")")
        XCTAssertGreaterThan(run.wall, 1.5, "the pause was real")
    }
}
