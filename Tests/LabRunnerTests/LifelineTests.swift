import Foundation
import LabHarness
import LabHarnessXCTest
import LabRunner
import Synchronization
import XCTest

/// Killing `lab all` by any signal, `SIGKILL` included, takes down everything it started: the
/// running experiment dies with it (its lifeline), and that experiment's trials die with the
/// experiment. Nothing keeps running, nothing keeps starting children.
final class LifelineTests: XCTestCase {
    private func killWhileAnExperimentRuns(signal: Int32) throws {
        // Without a process table there is nothing to find the trials by, and "nothing left" would pass unseen.
        if let reason = ProcessTable.unavailableReason { throw XCTSkip(reason) }
        let lab = try BuiltProducts.executable("lab")
        let labPid = Atomic<Int32>(0)
        let killed = Atomic<Bool>(false)
        let first = LabCatalog.standard.entries[0].command
        NamedThread.start("test.killer") {
            let deadline = MonotonicClock.now() + 60
            while MonotonicClock.now() < deadline {
                let pid = labPid.load(ordering: .acquiring)
                if pid != 0,
                    let experiment = ProcessTable.children(of: pid).first(where: {
                        $0.commandLine.contains(" \(first) --json")
                    }),
                    !ProcessTable.children(of: experiment.pid).isEmpty
                {
                    killed.store(true, ordering: .releasing)
                    kill(pid, signal)
                    return
                }
                MonotonicClock.sleep(for: 0.01)
            }
        }
        let run = try ChildProcess.run(
            ChildSpec(
                executable: lab, arguments: ["all", "--quick"], budget: 90,
                onStart: { labPid.store($0, ordering: .releasing) }))
        XCTAssertTrue(killed.load(ordering: .acquiring), "the experiment never started its trials: \(run.stderr)")
        let killedAt = MonotonicClock.now()

        // Within a second, nothing the run started is left (zombies waiting for their reaper aside).
        var leftovers: [ProcessTable.Entry] = []
        let mine = thisProcessAndItsAncestors()
        repeat {
            leftovers = ProcessTable.all().filter {
                $0.commandLine.hasPrefix(lab + " ") && $0.state != "Z" && !mine.contains($0.pid)
            }
            if leftovers.isEmpty { break }
            MonotonicClock.sleep(for: 0.02)
        } while MonotonicClock.now() - killedAt < 1
        XCTAssertEqual(
            leftovers.map(\.commandLine), [],
            "still running 1 s after lab was killed by \(ChildProcess.signalName(signal))")
        for entry in leftovers { kill(entry.pid, SIGKILL) }
    }

    func testSIGKILLOfLabAllLeavesNothingRunning() throws {
        try killWhileAnExperimentRuns(signal: SIGKILL)
    }

    func testSIGHUPOfLabAllLeavesNothingRunning() throws {
        try killWhileAnExperimentRuns(signal: SIGHUP)
    }
}
