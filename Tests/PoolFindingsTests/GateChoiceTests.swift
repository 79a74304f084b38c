import LabHarness
import LabHarnessXCTest
@testable import PoolExperiment
import Testing

/// Every `--gate-with` choice keeps the gated variant's claim: the findings run covers the
/// default gate, and this runs the others, one quick `gated` trial each, so a new choice is
/// tested the moment it becomes a case of `GateKind`.
@Suite(.serialized) struct GateChoiceTests {
    @Test(arguments: GateKind.allCases.filter { $0 != .semaphore })
    func gateKeepsLatency(with choice: GateKind) async throws {
        let report = try await Self.onOwnThread {
            try ExperimentRunner.run(
                poolExperiment,
                arguments: ["--quick", "--variant", PoolVariant.gated.rawValue, "--gate-with", choice.rawValue],
                executable: BuiltProducts.executable("exp-pool"))
        }
        let finding = try #require(report.finding("pool.gate-keeps-latency"))
        #expect(finding.reproduced, Comment(rawValue: finding.summary))
        #expect(
            finding.summary.contains("mechanism: \(choice.rawValue) gate"),
            Comment(rawValue: "the mechanism names the gate that held: " + finding.summary))
        let gated = try #require(report.variant(PoolVariant.gated))
        let running = try #require(gated[PoolMetric.runningMax]), gate = try #require(gated[PoolMetric.gate])
        #expect(running <= gate, "the gate holds")
    }

    /// Runs `body` on a thread of its own and awaits it. A trial takes seconds; holding one of
    /// the few threads Swift Testing's parallel tests run on for that long would hold up the
    /// other suites' work, which on Linux shares the default-priority dispatch pool with them.
    static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            NamedThread.start("test.gate-choice") { continuation.resume(with: Result { try body() }) }
        }
    }
}
