import Foundation

/// Measure, then trap, and read the trap's own message as evidence.
///
/// A trial that traps on purpose dies before it could look at how it died, so a checkpoint
/// alone lets any crash pass for the one the lesson is about. Here the trial's child runs the
/// same trial once more in a process of its own (where `isTrapProcess` is true: there the body
/// measures, checkpoints and traps), waits for it, and returns that process's checkpoint with
/// the outcome of its end and the runtime's fatal line: the body then decides its mechanism
/// from the message it saw, instead of hoping for it.
extension VariantContext {
    static let trapVariable = "LAB_TRAP_PROCESS"

    /// True in the process `runTrapProcess` started: the body should measure, `checkpoint`,
    /// then run the step that traps.
    public var isTrapProcess: Bool { ProcessInfo.processInfo.environment[Self.trapVariable] == "1" }

    /// Runs this trial again in a process of its own and returns what it measured before its
    /// end (its last checkpoint, or its result if it did not trap) with the outcome of that end,
    /// read as the runner reads a child trial's (`ChildRun.endRecord`): `crashed`, with `signal`
    /// and `wall_s` and the runtime's fatal line in front of the evidence; `failed` if it exited
    /// 0 without a result, or if its exit status was lost (`ChildRun.exitStatusLost`): a trap
    /// nobody saw is not taken for the lesson's. For a crash, the mechanism also needs the fatal
    /// line to contain `marker`: a trap on anything else is not the lesson's. The trap process
    /// lives within `budget` and dies with this one. Only in a child trial: a process that could
    /// trap must not be started from a test's own.
    public func runTrapProcess(budget: Seconds, trapSays marker: String) -> VariantRecord {
        guard inChild else {
            return VariantRecord(outcome: .failed, evidence: "\(variant) traps on purpose: run it in a child process")
        }
        var spec = ChildSpec(
            executable: ChildProcess.currentExecutablePath(), arguments: Array(CommandLine.arguments.dropFirst()),
            environment: [Self.trapVariable: "1", "SWIFT_BACKTRACE": "enable=no"], budget: budget)
        spec.endsAtThreadLimit = true
        let run: ChildRun
        do { run = try ChildProcess.run(spec) } catch ChildProcessError.spawnFailed(_, let code) where code == EAGAIN {
            return VariantRecord(outcome: .resourceLimited, evidence: MachineCheck.spawnRefused())
        } catch {
            return VariantRecord(outcome: .failed, evidence: "the trap process could not start: \(error)")
        }
        if let result = run.result { return run.withMachine(result) }
        var record = run.withMachine(run.endRecord)
        // A trap process the machine broke (a thread limit reached) measured nothing about the program.
        guard !record.outcome.judgesNothing else { return record }
        if run.outcome == .crashed {
            let message = Evidence.when(
                run.evidence.contains(marker), "the runtime's '\(marker)' message seen",
                otherwise: "the trap's message does not say '\(marker)': \(run.evidence)")
            record.mechanism = .all([message] + (record.mechanism.map { [$0] } ?? []))
        }
        return record
    }
}
