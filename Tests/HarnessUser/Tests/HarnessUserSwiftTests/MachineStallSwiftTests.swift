import Foundation
import HarnessUserKit
import LabHarnessTesting
import Testing

/// Budgets under a stall of the whole machine. A stall stops every test running beside it, so
/// the probes run only in a copy of this binary (started with `HARNESS_USER_STALL_PROBE`), one at
/// a time, each under a stall of 1 s (`MachineStall`), with budgets of 0.8 s. Correct code,
/// late only because the process was stopped, must pass, with a note naming the stall; a leak and
/// a double call must still fail. Without the allowance every correct probe failed.
@Suite(.serialized) struct MachineStalls {
    static var probing: Bool { ProcessInfo.processInfo.environment["HARNESS_USER_STALL_PROBE"] != nil }
    static func stall() throws -> MachineStall { try MachineStall(after: 0.15, for: 1.0) }

    // MARK: The probes (in the copy)

    @Test func probeFixedAReplyAfterTheStallIsReleased() throws {
        guard Self.probing else { return }
        let stall = try Self.stall()
        assertReleased(within: 0.8) { StalledReply(releasedAfter: stall) }
    }

    @MainActor @Test func probeFixedAMainActorReplyAfterTheStallIsReleased() async throws {
        guard Self.probing else { return }
        let stall = try Self.stall()
        var reply: StalledReply? = StalledReply(releasedAfter: stall)
        await assertReleased(&reply, within: 0.8)
    }

    @Test func probeFixedACallbackOnTheMainQueueAfterTheStall() throws {
        guard Self.probing else { return }
        let stall = try Self.stall()
        assertCalledOnMainQueue(within: 0.8) { done in stall.whenOver { DispatchQueue.main.async { done(()) } } }
    }

    @Test func probeFixedABlockThatWaitsOutTheStallCompletes() throws {
        guard Self.probing else { return }
        let stall = try Self.stall()
        assertCompletes(within: 0.8) { stall.waitUntilOver(timeout: 10) }
    }

    @Test func probeFixedAnOperationThatWaitsOutTheStallCompletes() async throws {
        guard Self.probing else { return }
        let stall = try Self.stall()
        await assertCompletes(within: 0.8) {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                stall.whenOver { done.resume() }
            }
        }
    }

    @Test(.leakChecked(grace: 0.8)) func probeFixedATrackedReplyAfterTheStallIsReleased() throws {
        guard Self.probing else { return }
        LeakChecked.track(StalledReply(releasedAfter: try Self.stall()))
    }

    @Test(.hangWatch(after: .seconds(1))) func probeFixedAStalledTestIsNoHang() throws {
        guard Self.probing else { return }
        try Self.stall().waitUntilOver(timeout: 10)
    }

    @Test func probeBadALeakUnderTheStall() throws {
        guard Self.probing else { return }
        let stall = try Self.stall()
        assertReleased(within: 0.8) { () -> LeakyDownloader in
            let downloader = LeakyDownloader()
            downloader.start()
            return downloader
        }
        stall.waitUntilOver(timeout: 10)
    }

    @Test func probeBadACallbackCalledTwiceAfterTheStall() async throws {
        guard Self.probing else { return }
        let stall = try Self.stall()
        await assertCalledExactlyOnce(within: 0.8, grace: 0.3) { done in
            stall.whenOver {
                done()
                done()  // the double call is the point
            }
        }
    }

    // MARK: The checks (here)

    static func runProbes(_ kind: String) throws -> (run: ChildRun, output: String) {
        try HarnessUserSwiftTests.runCopy(
            filter: "MachineStalls/probe\(kind)", environment: ["HARNESS_USER_STALL_PROBE": "1"], budget: 120)
    }

    @Test func correctCodeStalledByTheMachinePassesWithANote() throws {
        guard !Self.probing else { return }
        let (run, output) = try Self.runProbes("Fixed")
        #expect(run.outcome == .completed, "\(run.evidence)\n\(output)")
        // Every probe but the hang watch's says the pass needed the stall's allowance.
        let notes = output.components(separatedBy: "which the budget does not count: a pass").count - 1
        #expect(notes == 6, "\(output)")
        #expect(!output.contains("ran past its hang watch"), "\(output)")
    }

    @Test func aLeakOrADoubleCallStalledByTheMachineStillFails() throws {
        guard !Self.probing else { return }
        let (run, output) = try Self.runProbes("Bad")
        #expect(run.outcome == .failed, "\(run.evidence)\n\(output)")
        for text in [
            "LeakyDownloader was not released within 800 ms of its last outside reference going away; "
                + "the wait was extended by",
            "(a retain cycle)",
            "the callback was called 2 times; it must be called exactly once",
        ] {
            #expect(output.contains(text), "missing \"\(text)\" in: \(output)")
        }
    }
}
