import Foundation
import HarnessUserKit
import LabHarnessTesting
import Testing

extension HarnessUserSwiftTests {
    /// A failure recorded where `Test.current` is nil (a detached task, a dispatch queue) fails
    /// the Swift Testing run. Before, the harness took it to `XCTFail`, which records nothing in
    /// a Swift Testing run: a note on stderr, and the run passed. In an ordinary run the probes
    /// do nothing; a copy of this binary started with `HARNESS_USER_OFF_TEST_PROBE` runs one of
    /// them alone, and the checks below read how that copy ended.
    @Suite struct OffTestFailures {
        static var probe: String? { ProcessInfo.processInfo.environment["HARNESS_USER_OFF_TEST_PROBE"] }
        static let detachedLine = #line + 4
        @Test func p1_aLeakInADetachedTask() async {
            guard Self.probe == "detached" else { return }
            await Task.detached {
                _ = await assertReleased(within: 0.1) { () -> LeakyDownloader in
                    let downloader = LeakyDownloader()
                    downloader.start()
                    return downloader
                }
            }.value
        }

        static let dispatchLine = #line + 5
        @Test func p2_anOverrunOnADispatchQueue() async {
            guard Self.probe == "dispatch" else { return }
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async {
                    assertCompletes(within: 0.1) { Thread.sleep(forTimeInterval: 0.3) }
                    done.resume()
                }
            }
        }

        @Test func aLeakInADetachedTask_failsTheRun() throws {
            guard Self.probe == nil else { return }
            try Self.check("detached", line: Self.detachedLine, "LeakyDownloader was not released within 100 ms")
        }

        @Test func anOverrunOnADispatchQueue_failsTheRun() throws {
            guard Self.probe == nil else { return }
            try Self.check("dispatch", line: Self.dispatchLine, "did not complete within 100 ms")
        }

        /// Runs the probe alone, as `swift test` runs the Swift Testing part of this binary, and
        /// checks that the copy failed with the probe's failure as an issue at its line.
        static func check(_ probe: String, line: Int, _ text: String,
                          sourceLocation: SourceLocation = #_sourceLocation) throws {
            let (run, output) = try HarnessUserSwiftTests.runCopy(
                filter: "OffTestFailures/p", environment: ["HARNESS_USER_OFF_TEST_PROBE": probe], budget: 60)
            #expect(run.outcome == .failed, "\(probe): \(run.evidence)\n\(output)", sourceLocation: sourceLocation)
            // Swift Testing lists it under no test: it cannot say whose it is.
            #expect(output.contains("recorded an issue at OffTestFailureSwiftTests.swift:\(line):"),
                    "\(probe): \(output)", sourceLocation: sourceLocation)
            #expect(output.contains(text), "\(probe): missing \"\(text)\" in: \(output)",
                    sourceLocation: sourceLocation)
            #expect(output.contains("LabHarness recorded a failure outside any Swift Testing test"),
                    "\(probe): \(output)", sourceLocation: sourceLocation)
            #expect(!output.contains("through XCTFail"), "\(probe): \(output)", sourceLocation: sourceLocation)
        }
    }
}
