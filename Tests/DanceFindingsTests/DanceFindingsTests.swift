import Foundation
import LabHarness
import LabHarnessXCTest
import XCTest
@testable import DanceExperiment

/// The findings of exp-dance, one test per finding, as living documentation.
///
/// Each test runs the real `exp-dance` executable for its variants (a child process per trial,
/// so leaks and the unowned trap stay out of this process) with a short delay instead of the
/// seed's two seconds, then checks the finding and the measurements behind it. Where a lesson
/// class is safe in-process, the test also shows it with the harness's release assertions.
/// Verdicts rest on orderings and reference-count changes, never on speed.
final class DanceFindingsTests: XCTestCase {
    /// Short enough for a fast suite, long enough to tell "after the delay" from "at once".
    let delay = "0.3"
    let grace = "0.2"

    func run(_ variants: String...) throws -> ExperimentReport {
        try ExperimentRunner.run(danceExperiment, arguments: ["--variant", variants.joined(separator: ","), "--delay", delay, "--grace", grace],
                                 executable: BuiltProducts.executable("exp-dance"))
    }

    func assertReproduced(_ report: ExperimentReport, _ id: String, file: StaticString = #filePath, line: UInt = #line) {
        guard let finding = report.finding(id) else { return XCTFail("\(id) was not evaluated", file: file, line: line) }
        XCTAssertTrue(finding.applicable, id, file: file, line: line)
        XCTAssertTrue(finding.reproduced, "\(id): \(finding.summary)", file: file, line: line)
    }

    func labels(_ variant: VariantReport?) -> [String] { variant?.events?.map(\.label) ?? [] }

    func time(_ label: String, in variant: VariantReport?) -> Double? {
        variant?.events?.first { $0.label == label }?.t
    }

    // MARK: - One test per finding

    /// A closure stored on its owner that names `self` is a cycle: the owner outlives its scope
    /// for the whole grace period, and clearing the closure is what lets it go.
    func testStrongCaptureLeaks() throws {
        let report = try run("strong-capture")
        assertReproduced(report, "dance.strong-capture-leaks")
        let v = report.variant(DanceVariant.strongCapture)
        XCTAssertEqual(v?.outcome, .leaked, v?.evidence ?? "")
        XCTAssertEqual(v?.metrics["capture.stored.strong"], 1, "the stored handler is one strong reference to the ticker")
        XCTAssertEqual(v?.metrics["alive_at_scope_exit"], 1)
        XCTAssertEqual(v?.metrics["released_after_break"], 1, "clearing onTick breaks the cycle")
        XCTAssertEqual(labels(v), ["tick", "scope-end", "grace-over", "cycle-broken", "deinit"])

        // The same lesson in this process, with the harness's assertions.
        weak var leaked: Ticker?
        assertNotReleased(after: 0.1) {
            let ticker = Ticker(lifetime: ReleaseTracker().tag("ticker"))
            ticker.start()
            leaked = ticker
            return ticker
        }
        leaked?.onTick = nil
        XCTAssertNil(leaked, "clearing the stored handler released the ticker")
    }

    /// `[weak self]` + `guard let self`: the owner goes at the end of its scope; the delayed
    /// work runs later and finds nil.
    func testWeakStrongReleases() throws {
        let report = try run("weak-strong")
        assertReproduced(report, "dance.weak-strong-releases")
        let v = report.variant(DanceVariant.weakStrong)
        XCTAssertEqual(v?.outcome, .completed, v?.evidence ?? "")
        XCTAssertEqual(v?.metrics["capture.stored.strong"], 0)
        XCTAssertEqual(v?.metrics["capture.stored.weak"], 1, "the stored closure holds a weak reference")
        XCTAssertEqual(v?.metrics["capture.pending.weak"], 1, "so does the pending retry")
        XCTAssertEqual(v?.metrics["delayed.found_nil"], 1)
        XCTAssertEqual(labels(v), ["progress", "retry-scheduled", "scope-end", "deinit", "retry-found-nil"])
        let scheduledAt = try XCTUnwrap(time("retry-scheduled", in: v)), retryAt = try XCTUnwrap(time("retry-found-nil", in: v))
        XCTAssertGreaterThanOrEqual(retryAt - scheduledAt, 0.3 * 0.98, "the retry waited for its delay, long after the release")

        assertReleased(within: 1) {
            let uploader = Uploader(lifetime: ReleaseTracker().tag("uploader"), log: DanceLog(origin: MonotonicClock.now()))
            uploader.start()
            uploader.reportProgress()
            return uploader
        }
    }

    /// The heap-stack dance: the stored closure takes the owner as a parameter, captures
    /// nothing (no reference count moves), and the owner goes at the end of its scope.
    func testHeapStackReleases() throws {
        let report = try run("heap-stack")
        assertReproduced(report, "dance.heap-stack-releases")
        let v = report.variant(DanceVariant.heapStack)
        XCTAssertEqual(v?.outcome, .completed, v?.evidence ?? "")
        for moment in ["created", "stored"] {
            XCTAssertEqual(CapturedReference.delta(v?.metrics ?? Metrics(), moment: moment), .zero, "\(moment): the closure captured nothing")
        }
        XCTAssertEqual(labels(v), ["reading", "scope-end", "deinit"])

        assertReleased(within: 1) {
            let thermostat = Thermostat(lifetime: ReleaseTracker().tag("thermostat"))
            thermostat.start()
            thermostat.read()
            return thermostat
        }
    }

    /// The seed's Foo: completion2, the delay, completion1, then deinit. The delayed block's
    /// parameter keeps foo alive exactly until the block has run.
    func testHeapStackDelayedOrder() throws {
        let report = try run("heap-stack-delayed")
        assertReproduced(report, "dance.heap-stack-delayed-order")
        let v = report.variant(DanceVariant.heapStackDelayed)
        XCTAssertEqual(v?.outcome, .completed, v?.evidence ?? "")
        XCTAssertEqual(labels(v), ["completion2", "scope-end", "after-delay", "completion1", "deinit"])
        let c2 = try XCTUnwrap(time("completion2", in: v)), c1 = try XCTUnwrap(time("completion1", in: v))
        let gone = try XCTUnwrap(time("deinit", in: v))
        XCTAssertGreaterThanOrEqual(c1 - c2, 0.3 * 0.98, "completion1 waited for the delay")
        let machine = v?.metrics["deinit_after_completion1.control_delay_s"] ?? 0
        XCTAssertLessThan(gone - c1 - machine, 0.15, "foo went as soon as the delayed block had run (a machine stall taken off)")
        XCTAssertEqual(v?.metrics["alive_mid_delay"], 1, "the pending block kept foo alive")
        XCTAssertEqual(v?.metrics["capture.pending.strong"], 1, "the pending block holds foo once")
        XCTAssertEqual(v?.metrics["capture.stored.strong"], 0, "the stored completions hold nothing")
    }

    /// An API that stores the caller's action leaks the object the action names; the fixed API,
    /// passing the object as the action's first parameter, does not.
    func testHiddenAPICycle() throws {
        let report = try run("hidden-api-cycle", "hidden-api-fixed")
        assertReproduced(report, "dance.hidden-api-cycle")
        XCTAssertEqual(report.variant(DanceVariant.hiddenAPICycle)?.outcome, .leaked)
        XCTAssertEqual(report.variant(DanceVariant.hiddenAPICycle)?.metrics["capture.stored.strong"], 1)
        XCTAssertEqual(report.variant(DanceVariant.hiddenAPIFixed)?.outcome, .completed)
        XCTAssertEqual(report.variant(DanceVariant.hiddenAPIFixed)?.metrics["capture.stored.strong"], 0)

        weak var leaked: ConversationScreen?
        assertNotReleased(after: 0.1) {
            let screen = ConversationScreen(lifetime: ReleaseTracker().tag("screen"))
            screen.configureBarButtonItem(style: .groupProfile) { _ in screen.push("group profile") }
            leaked = screen
            return screen
        }
        leaked?.clearBarButtonAction()
        XCTAssertNil(leaked)
        assertReleased(within: 1) {
            let screen = FixedConversationScreen(lifetime: ReleaseTracker().tag("screen"))
            screen.configureBarButtonItem(style: .groupProfile) { screen, _ in screen.push("group profile") }
            screen.tapBarButton()
            return screen
        }
    }

    /// `[unowned self]` read after the owner was released traps (in a child process), with the
    /// runtime's own message as evidence.
    func testUnownedTrapsAfterRelease() throws {
        let report = try run("unowned-after-release")
        assertReproduced(report, "dance.unowned-traps-after-release")
        let v = report.variant(DanceVariant.unownedAfterRelease)
        XCTAssertEqual(v?.outcome, .crashed)
        XCTAssertTrue(v?.evidence?.contains("Attempted to read an unowned reference") ?? false, v?.evidence ?? "no evidence")
        XCTAssertEqual(v?.metrics["capture.stored.unowned"], 1)
        XCTAssertEqual(v?.metrics["capture.stored.strong"], 0)
        XCTAssertEqual(labels(v), ["post", "scope-end", "deinit", "post-after-release"], "released first, called after")
    }

    // MARK: - The experiment's contract

    /// Every variant's record carries a release timeline: its scope's end, and its deinit when
    /// it happened.
    func testEveryVariantHasAReleaseTimeline() throws {
        let report = try ExperimentRunner.run(danceExperiment, arguments: ["--quick", "--delay", "0.1", "--grace", grace],
                                              executable: BuiltProducts.executable("exp-dance"))
        XCTAssertEqual(report.variants.map(\.name), danceExperiment.variants.map(\.name))
        for v in report.variants {
            XCTAssertTrue(labels(v).contains("scope-end"), "\(v.name): \(labels(v))")
            XCTAssertTrue(labels(v).contains("deinit"), "\(v.name): \(labels(v))")   // leaks too, once their cycle is broken
        }
        XCTAssertTrue(report.allReproduced, report.findings.filter { !$0.reproduced }.map(\.summary).joined(separator: "\n"))
    }
}
