@testable import LabHarness
import XCTest

/// The machine's outcomes and `interrupted` are graded neither way, and a finding that needs
/// such a variant is "not judged" with the reason, never reproduced or refuted.
final class MachineGradeTests: XCTestCase {
    private let variant = Variant("v", summary: "a variant", expect: [OutcomeExpectation(.completed, .expected, "ran")])
    { _ in
        VariantRecord(outcome: .completed)
    }

    func testAnInterruptedOrMachineBrokenTrialIsNotForbidden() {
        for outcome in [
            Outcome.interrupted, .resourceLimited, .cpuStarved, .outOfMemory, .killedFromOutside, .suspended,
        ] {
            let report = ExperimentRunner.aggregate(
                variant,
                [
                    VariantRecord(outcome: .completed),
                    VariantRecord(outcome: outcome, evidence: "the machine: figures"),
                ])
            XCTAssertEqual(report.outcome, outcome, "one broken trial leaves the variant unjudged")
            XCTAssertNil(report.grade, "\(outcome) is neither allowed nor forbidden")
        }
        let undeclared = ExperimentRunner.aggregate(variant, [VariantRecord(outcome: .deadlock)])
        XCTAssertEqual(undeclared.grade, .forbidden, "the program's own undeclared outcome stays forbidden")
    }

    /// A forbidden outcome in a trial that was judged fails the run whatever the other trials did:
    /// one trial the machine broke, or one that did not see its mechanism, left the variant with
    /// no grade at all, and a run with `[failed, cpu-starved, completed]` passed.
    func testAForbiddenTrialIsNotHiddenByABrokenOrUnseenOne() {
        for other in [
            VariantRecord(outcome: .cpuStarved, evidence: "the machine: figures"),
            VariantRecord(outcome: .completed, mechanism: .notSeen("nothing waited")),
        ] {
            let report = ExperimentRunner.aggregate(
                variant, [VariantRecord(outcome: .deadlock, mechanism: .seen("it hung")), other])
            XCTAssertEqual(report.grade, .forbidden, "\(other.outcome)")
        }
    }

    /// A claim holds only when every trial showed it: two trials that ended as expected and one
    /// that did not report the one that did not, and say how often.
    func testAClaimIsReproducedOnlyWhenEveryTrialShowedIt() {
        let declared = Variant(
            "v", summary: "", expect: [.expected(.completed, "ran"), .interesting(.leaked, "held on")],
            claim: Claim("v.claim", "it completes")
        ) { _ in VariantRecord(outcome: .completed) }
        let report = ExperimentRunner.aggregate(
            declared,
            [
                VariantRecord(outcome: .completed, mechanism: .seen("ran")),
                VariantRecord(outcome: .leaked, mechanism: .seen("held")),
                VariantRecord(outcome: .completed, mechanism: .seen("ran")),
            ])
        XCTAssertEqual(report.outcome, .leaked)
        let finding = Claim("v.claim", "it completes").report(report, expectations: declared.expectations)
        XCTAssertFalse(finding.reproduced, finding.summary)
        XCTAssertTrue(finding.summary.contains("in 1 of 3 trials (the others: 2 completed)"), finding.summary)
    }

    func testAFindingOnABrokenVariantIsNotJudged() throws {
        let finding = Finding("x.claim", claim: "it holds", needs: ["v"]) { _ in
            Verdict(symptom: true, mechanism: .seen("seen"), "held")
        }
        let options = try CommandLineParser(program: "x", flags: []).parse([])
        let told = [Outcome.cpuStarved: "the machine: waited 3 s for a CPU", .interrupted: "stopped by SIGINT"]
        for (outcome, why) in [(Outcome.cpuStarved, "the machine"), (.interrupted, "interrupted")] {
            let broken = VariantReport(name: "v", outcome: outcome, evidence: told[outcome])
            let report = try XCTUnwrap(
                finding.report(
                    variants: ["v": broken], options: options, platform: .current, parameters: NoParameters(options)))
            XCTAssertEqual(report.judged, false)
            XCTAssertEqual(
                report.status, .notJudged(outcome == .interrupted ? .interrupted : .machineOutcome), "the typed reason")
            XCTAssertFalse(report.reproduced)
            XCTAssertTrue(report.applicable)
            XCTAssertEqual(report.summary, "not judged (v ended \(outcome)): \(told[outcome] ?? "")")
            let silent = VariantReport(name: "v", outcome: outcome)
            let bare = finding.report(
                variants: ["v": silent], options: options, platform: .current, parameters: NoParameters(options))
            XCTAssertEqual(
                bare?.summary, "not judged (v ended \(outcome)): \(why)", "with no evidence, the reason's name")
        }
        let fine = try XCTUnwrap(
            finding.report(
                variants: ["v": VariantReport(name: "v", outcome: .completed)], options: options, platform: .current,
                parameters: NoParameters(options)))
        XCTAssertNil(fine.judged, "a judged finding's JSON keeps schema 1's keys only")
        XCTAssertNil(fine.notJudgedReason)
        XCTAssertEqual(fine.status, .reproduced)
        XCTAssertTrue(fine.reproduced)
    }

    // MARK: Round two (issue 30): the doors the machine came through

    func testASignalNoFaultRaisesIsAKillFromOutsideUnlessTheTrialSaidSomethingFatal() {
        for signal in [SIGKILL, SIGTERM, SIGHUP] {
            let outside = MachineCheck.signalFromOutside(
                signal: signal, fatalLine: nil, pid: 0, cpuLimit: -1, fileSizeLimit: -1)
            XCTAssertEqual(outside?.outcome, .killedFromOutside, "\(signal)")
            XCTAssertTrue(outside?.evidence.contains("from outside the harness") == true, outside?.evidence ?? "")
            XCTAssertTrue(outside?.outcome.judgesNothing == true)
        }
        XCTAssertNil(
            MachineCheck.signalFromOutside(
                signal: SIGKILL, fatalLine: "Fatal error: boom", pid: 0, cpuLimit: -1, fileSizeLimit: -1),
            "a trial that said something fatal crashed on its own")
        for own in [SIGSEGV, SIGILL, SIGABRT, SIGTRAP, SIGBUS] {
            XCTAssertNil(
                MachineCheck.signalFromOutside(signal: own, fatalLine: nil, pid: 0, cpuLimit: -1, fileSizeLimit: -1),
                "signal \(own) is one a program raises itself: its crash is its own")
        }
    }

    func testTheCPUTimeAndFileSizeLimitsAreNamedWithTheirValues() {
        let cpu = MachineCheck.signalFromOutside(
            signal: SIGXCPU, fatalLine: nil, pid: 0, cpuLimit: 3, fileSizeLimit: -1)
        XCTAssertEqual(cpu?.outcome, .resourceLimited)
        XCTAssertTrue(cpu?.evidence.contains("RLIMIT_CPU 3 s") == true, cpu?.evidence ?? "")
        let size = MachineCheck.signalFromOutside(
            signal: SIGXFSZ, fatalLine: nil, pid: 0, cpuLimit: -1, fileSizeLimit: 2_000_000)
        XCTAssertEqual(size?.outcome, .resourceLimited)
        XCTAssertTrue(size?.evidence.contains("RLIMIT_FSIZE 2 MB") == true, size?.evidence ?? "")
        let files = MachineCheck.descriptorsExhausted(stderr: "socket: Too many open files\n", limit: 20)
        XCTAssertEqual(files?.outcome, .resourceLimited)
        XCTAssertTrue(files?.evidence.contains("RLIMIT_NOFILE 20") == true, files?.evidence ?? "")
        XCTAssertNil(MachineCheck.descriptorsExhausted(stderr: "Fatal error: index out of range", limit: 20))
        XCTAssertEqual(MachineCheck.descriptorsExhausted(errno: EMFILE)?.outcome, .resourceLimited)
        XCTAssertNil(MachineCheck.descriptorsExhausted(errno: EPIPE))
    }

    func testAPidsCgroupIsNamedAsTheCgroupsLimitNotRLimitNproc() {
        let full = MachineCheck.pidsCgroup(limit: 20, current: 20, refused: 3)
        XCTAssertEqual(full.outcome, .resourceLimited)
        XCTAssertTrue(full.evidence.contains("pids.max of 20"), full.evidence)
        XCTAssertFalse(full.evidence.contains("RLIMIT_NPROC"), full.evidence)
        XCTAssertEqual(full.metrics["limit.cgroup_pids_max"], 20)
    }

    func testStarvationNeedsTheTrialsOwnThreadsRunnableNotTheHarnesss() {
        // Two builds on two cores: 7 of 8 threads sleep in semaphore waits; the harness's samplers
        // queued 332 ms in a 300 ms look. Left out, the trial's own threads waited for nothing.
        let asleep = MachineCheck.StarvationLook(
            threads: 8, subjects: 6, harness: 2, runnable: 0, window: 0.3, waited: 0.004,
            ran: 0.001, total: 0.01, lifetime: 3, lowClass: false)
        XCTAssertNil(
            MachineCheck.starvationVerdict(asleep), "threads asleep in a wait are not starved: the deadlock stands")
        // The same look with the trial's own threads runnable and passed over is the machine's.
        let passedOver = MachineCheck.StarvationLook(
            threads: 8, subjects: 6, harness: 2, runnable: 3, window: 0.3, waited: 0.8,
            ran: 0.01, total: 2, lifetime: 3, lowClass: false)
        let starved = MachineCheck.starvationVerdict(passedOver)
        XCTAssertEqual(starved?.outcome, .cpuStarved)
        XCTAssertTrue(
            starved?.evidence.contains("3 of its 6 trial threads were runnable") == true, starved?.evidence ?? "")
        XCTAssertTrue(MachineCheck.isHarnessThread(ThreadInfo(id: 1, name: "lab.sampler", state: .running)))
        XCTAssertFalse(MachineCheck.isHarnessThread(ThreadInfo(id: 2, name: "exp-runloop", state: .running)))
    }

    func testOneRunnableThreadBesideThreadsAsleepInWaitsDoesNotWithholdADeadlock() {
        // Seen in a fresh-clone CI run: global-queue's callers asleep in their semaphores, one
        // other thread queued 238 ms for a CPU while another trial's busy loop held both cores.
        let oneOfFour = MachineCheck.StarvationLook(
            threads: 8, subjects: 4, harness: 4, runnable: 1, window: 0.3, waited: 0.238,
            ran: 0.00024, total: 0.4, lifetime: 3.3, lowClass: false)
        XCTAssertNil(
            MachineCheck.starvationVerdict(oneOfFour), "the threads the deadlock rests on slept in their waits")
        XCTAssertEqual(
            oneOfFour.description, "1 of its 4 trial threads waited 238 ms for a CPU and ran 240 µs in a 300 ms look")
        var half = oneOfFour
        half.runnable = 2
        XCTAssertEqual(
            MachineCheck.starvationVerdict(half)?.outcome, .cpuStarved,
            "half the trial's threads passed over is the machine's")
        // At the scheduler's lowest class the one runnable thread may be the one the rest wait for.
        var idle = oneOfFour
        idle.lowClass = true
        XCTAssertEqual(MachineCheck.starvationVerdict(idle)?.outcome, .cpuStarved)
        // A lone thread passed over (a trial still starting up) is the machine's at any class.
        let alone = MachineCheck.StarvationLook(
            threads: 1, subjects: 1, harness: 0, runnable: 1, window: 0.3, waited: 0.29,
            ran: 0.001, total: 9, lifetime: 11.1, lowClass: false)
        XCTAssertEqual(MachineCheck.starvationVerdict(alone)?.outcome, .cpuStarved)
    }

    func testThreadsHeldInAnUninterruptibleKernelWaitBesideRunnableOnesAreTheMachines() {
        // Seen with `exp-runloop --variant dedicated-thread --caller async --tasks 300`, the child
        // stopped for 70 ms while it made its threads: then 37 of its run-loop threads queued for
        // the 2 CPUs and 135 sat in `D` (in `expand_files`, growing the shared descriptor table),
        // 134 asleep. The old rule saw 37 of 302 runnable, called it a deadlock, and the finding
        // read NOT REPRODUCED ("166 of 300 timers fired").
        let burst = MachineCheck.StarvationLook(
            threads: 306, subjects: 302, harness: 4, runnable: 37, heldInKernel: 135, window: 0.3, waited: 10.9,
            ran: 0.04, total: 60, lifetime: 3.4, lowClass: false)
        let starved = MachineCheck.starvationVerdict(burst)
        XCTAssertEqual(starved?.outcome, .cpuStarved)
        XCTAssertTrue(
            starved?.evidence.contains("and 135 more were held in an uninterruptible kernel wait (state D)") == true,
            starved?.evidence ?? "")
        XCTAssertEqual(starved?.metrics["cpu.probe_kernel_held_threads"], 135)
        // Without the runnable ones nothing says the machine is short of CPU: a thread in `D`
        // alone (a slow disk) does not withhold a deadlock whose other threads sleep in waits.
        var heldOnly = burst
        heldOnly.runnable = 0
        XCTAssertNil(MachineCheck.starvationVerdict(heldOnly))
        // Fewer held and runnable than half the trial's threads: the deadlock stands.
        var few = burst
        few.heldInKernel = 20
        XCTAssertNil(MachineCheck.starvationVerdict(few))
    }

    func testThreadsThatHadTheCPUsThemselvesAreNotStarvedByTheMachine() {
        // The same trial another time: 171 of its 274 threads runnable, spinning on Foundation's
        // run-loop table lock, ran 647 ms in a 301 ms look on 2 CPUs: the CPUs were the trial's.
        // The old rule called it cpu-starved, and a correct-looking "not judged" hid the stall.
        let spinning = MachineCheck.StarvationLook(
            threads: 278, subjects: 274, harness: 4, runnable: 171, heldInKernel: 100, cpus: 2, window: 0.301,
            waited: 102.9, ran: 0.647, total: 4453, lifetime: 19.7, lowClass: false)
        XCTAssertNil(MachineCheck.starvationVerdict(spinning), "the trial's own threads had the CPUs")
        // Beside a machine whose other work had the CPUs (the trial ran 44 ms of 600), starved.
        var passedOver = spinning
        passedOver.ran = 0.044
        XCTAssertEqual(MachineCheck.starvationVerdict(passedOver)?.outcome, .cpuStarved)
        // With the CPU count unknown, the figure decides nothing (the old rule).
        var unknown = spinning
        unknown.cpus = 0
        XCTAssertEqual(MachineCheck.starvationVerdict(unknown)?.outcome, .cpuStarved)
    }

    func testAtTheLowestClassTheWholeLifesWaitIsTheMachinesEvenWithEveryThreadAsleep() {
        // hostile-check idle (whole lab at SCHED_IDLE beside stress --cpu 2): sync-semaphore-main
        // reported its first step late, then waited in its semaphore as designed, and was killed
        // at its budget as timed-out (forbidden) with "3 threads: 3 S": the scheduler had spent
        // the budget before the deadlock began.
        let late = MachineCheck.StarvationLook(
            threads: 3, subjects: 3, harness: 0, runnable: 0, window: 0.3, waited: 0,
            ran: 0, total: 4.2, lifetime: 6, lowClass: true)
        let starved = MachineCheck.starvationVerdict(late)
        XCTAssertEqual(starved?.outcome, .cpuStarved)
        XCTAssertTrue(
            starved?.evidence.contains(
                "at the scheduler's lowest class its 3 trial threads had 4.20 s of run-queue wait in its 6.00 s")
                == true, starved?.evidence ?? "")
        // The same deadlock at SCHED_IDLE on an idle machine waited for nothing: judged.
        var idleMachine = late
        idleMachine.total = 0.004
        XCTAssertNil(MachineCheck.starvationVerdict(idleMachine))
        // At normal priority a life's wait never withholds a deadlock whose threads sleep.
        var normal = late
        normal.lowClass = false
        XCTAssertNil(MachineCheck.starvationVerdict(normal))
    }

    func testAForkRefusedAtAProcessLimitIsTheMachinesNotTheTrials() {
        // Under RLIMIT_NPROC 12 (hostile-check nproc12) the stderr forwarder of exp-callback's
        // async-leak could not be forked, and the variant ended failed, a forbidden outcome.
        let refused = MachineCheck.processCreationRefused("the process that copies stderr", error: POSIXError(.EAGAIN))
        XCTAssertEqual(refused?.outcome, .resourceLimited)
        XCTAssertTrue(
            refused?.evidence.contains(
                "the process that copies stderr could not be started (fork: EAGAIN; RLIMIT_NPROC") == true,
            refused?.evidence ?? "")
        XCTAssertEqual(MachineCheck.processCreationRefused("x", error: POSIXError(.EMFILE))?.outcome, .resourceLimited)
        XCTAssertNil(
            MachineCheck.processCreationRefused("x", error: POSIXError(.EIO)), "any other error is the harness's own")
    }

    func testCPUsComeFromTheAffinityMaskAndTheQuota() {
        let pinned = CPUBudget(online: 2, affinity: 1, quota: nil)
        XCTAssertEqual(pinned.poolWidth, 1)
        XCTAssertEqual(pinned.usable, 1)
        XCTAssertTrue(pinned.statement.contains("1 of 2 online CPUs in the affinity mask"), pinned.statement)
        let quota = CPUBudget(online: 8, affinity: 8, quota: 1.5)
        XCTAssertEqual(quota.usable, 2, "a quota of 1.5 CPUs lets two run at once, part of the time")
        XCTAssertEqual(quota.poolWidth, 8, "libdispatch sizes its pool from the mask, not the quota")
        XCTAssertTrue(quota.statement.contains("quota of 1.5 CPUs"), quota.statement)
        let darwin = CPUBudget(online: 10, affinity: nil, quota: nil)
        XCTAssertEqual(darwin.usable, 10)
        XCTAssertTrue(darwin.statement.contains("no affinity mask"), "says what it fell back to: \(darwin.statement)")
        XCTAssertEqual(PlatformInfo.current.cpus, CPUBudget.current.usable)
    }

    func testAnInterruptedRunsClosingLineNamesExit130() {
        let interrupted = ExperimentReport(
            experiment: "x", platform: .current, parameters: [:],
            variants: [VariantReport(name: "v", outcome: .interrupted, evidence: "interrupted after 1 s")],
            findings: [])
        let line = HumanReport.machineLines(interrupted, style: Style(enabled: false)).joined()
        XCTAssertTrue(line.contains("exit 130"), line)
        XCTAssertFalse(line.contains("exit 1)"), line)
        let broken = ExperimentReport(
            experiment: "x", platform: .current, parameters: [:],
            variants: [VariantReport(name: "v", outcome: .killedFromOutside, evidence: "the machine: killed")],
            findings: [])
        XCTAssertTrue(HumanReport.machineLines(broken, style: Style(enabled: false)).joined().contains("(exit 1)"))
    }

    func testAnOptionalVariantTheMachineBrokeIsReadAsNotRun() throws {
        enum Name: String { case needed, optional }
        let options = try CommandLineParser(program: "x", flags: []).parse([])
        let suspended = VariantReport(
            name: "optional", outcome: .suspended, evidence: "the machine: stopped from outside")
        let inputs = FindingInputs(
            variants: ["needed": VariantReport(name: "needed", outcome: .completed), "optional": suspended],
            options: options, platform: .current)
        XCTAssertNil(inputs.ran(Name.optional), "a suspended trial's figures are the stop's, not the program's")
        XCTAssertNotNil(inputs.ran(Name.needed))
    }
}
