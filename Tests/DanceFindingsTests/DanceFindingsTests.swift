import FindingsTestSupport
import Foundation
import LabHarness
import LabHarnessXCTest
import XCTest
@testable import DanceExperiment

/// The findings of exp-dance, one test per finding, as living documentation.
///
/// The suite runs the real `exp-dance` once, every variant (a child process per trial, so leaks
/// and the unowned trap stay out of this process), with `--quick`; each test then reads its
/// finding's verdict, its variant's outcome and the order of its events. The figures the claims
/// are judged against live in the experiment and are printed with its verdicts: these tests
/// never restate them. Where a lesson class is safe in-process, the test also shows it with the
/// harness's release assertions.
final class DanceFindingsTests: XCTestCase {
    /// One run of every variant, shared by the tests. A run in which the machine broke a trial
    /// (on a loaded machine, a short trial can be `cpu-starved`) measured nothing about the
    /// lesson, and its claims are honestly not judged: such a run is measured again, at most
    /// twice. Any other failure stands.
    static let run = Result {
        // The `--quick` run `lab all` made for every suite (`SharedQuickLabAll`), else its own.
        if let shared = SharedQuickLabAll.report(of: danceExperiment, lab: try BuiltProducts.executable("lab")) {
            return shared
        }
        let once = {
            try ExperimentRunner.run(
                danceExperiment, arguments: ["--quick"], executable: BuiltProducts.executable("exp-dance"))
        }
        var report = try once()
        for _ in 0..<2 where report.variants.contains(where: { $0.outcome.judgesNothing }) { report = try once() }
        return report
    }

    func report() throws -> ExperimentReport { try Self.run.get() }

    func variant(_ name: DanceVariant) throws -> VariantReport { try XCTUnwrap(report().variant(name)) }

    func labels(_ name: DanceVariant) throws -> [String] { try variant(name).events?.map(\.label) ?? [] }

    /// A 0/1 metric as a yes or no (`nil` when not recorded).
    func flag(_ name: DanceVariant, _ key: String) throws -> Bool? { try variant(name)[key].map { $0 == 1 } }

    // MARK: - One test per finding

    /// A closure stored on its owner that names `self` is a cycle: the owner outlives its scope
    /// for the whole grace period, and clearing the closure is what lets it go.
    func testStrongCaptureLeaks() throws {
        try assertReproduced("dance.strong-capture-leaks", in: report(), of: danceExperiment)
        let v = try variant(.strongCapture)
        XCTAssertEqual(v.outcome, .leaked, v.evidence ?? "")
        XCTAssertEqual(
            try flag(.strongCapture, DanceMetric.releasedAfterBreak), true, "clearing onTick broke the cycle")
        XCTAssertEqual(try labels(.strongCapture), ["tick", "scope-end", "grace-over", "cycle-broken", "deinit"])

        // The same lesson in this process, with the harness's assertions.
        weak var leaked: Ticker?
        assertNotReleased(after: 0.1) {
            let ticker = Ticker(onDeinit: {})
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
        try assertReproduced("dance.weak-strong-releases", in: report(), of: danceExperiment)
        let v = try variant(.weakStrong)
        XCTAssertEqual(v.outcome, .completed, v.evidence ?? "")
        XCTAssertEqual(try flag(.weakStrong, DanceMetric.delayedFoundNil), true, "the retry found its uploader gone")
        XCTAssertEqual(
            try labels(.weakStrong), ["progress", "retry-scheduled", "scope-end", "deinit", "retry-found-nil"])

        assertReleased(within: 1) {
            let uploader = Uploader(onDeinit: {}) { _ in }
            uploader.start()
            uploader.reportProgress()
            return uploader
        }
    }

    /// The heap-stack dance: the stored closure takes the owner as a parameter, captures
    /// nothing (no reference count moves), and the owner goes at the end of its scope.
    func testHeapStackReleases() throws {
        try assertReproduced("dance.heap-stack-releases", in: report(), of: danceExperiment)
        let v = try variant(.heapStack)
        XCTAssertEqual(v.outcome, .completed, v.evidence ?? "")
        for moment in ["created", "stored"] {
            XCTAssertEqual(
                DanceReport.captured(v.metrics, moment: moment), .zero, "\(moment): the closure captured nothing")
        }
        XCTAssertEqual(try labels(.heapStack), ["reading", "scope-end", "deinit"])

        assertReleased(within: 1) {
            let thermostat = Thermostat(onDeinit: {})
            thermostat.start()
            thermostat.read()
            return thermostat
        }
    }

    /// The seed's Foo: completion2, the delay, completion1, then deinit. The delayed block's
    /// parameter keeps foo alive exactly until the block has run.
    func testHeapStackDelayedOrder() throws {
        try assertReproduced("dance.heap-stack-delayed-order", in: report(), of: danceExperiment)
        let v = try variant(.heapStackDelayed)
        XCTAssertEqual(v.outcome, .completed, v.evidence ?? "")
        XCTAssertEqual(
            try labels(.heapStackDelayed), ["completion2", "scope-end", "after-delay", "completion1", "deinit"])
        XCTAssertEqual(try flag(.heapStackDelayed, DanceMetric.aliveMidDelay), true, "the pending block kept foo alive")
        XCTAssertEqual(DanceReport.captured(v.metrics, moment: "stored"), .zero, "the stored completions hold nothing")
    }

    /// An API that stores the caller's action leaks the object the action names; the fixed API,
    /// passing the object as the action's first parameter, does not.
    func testHiddenAPICycle() throws {
        try assertReproduced("dance.hidden-api-cycle", in: report(), of: danceExperiment)
        XCTAssertEqual(try variant(.hiddenAPICycle).outcome, .leaked)
        XCTAssertEqual(try variant(.hiddenAPIFixed).outcome, .completed)
        XCTAssertEqual(
            DanceReport.captured(try variant(.hiddenAPIFixed).metrics), .zero, "the fixed API's action holds nothing")

        weak var leaked: ConversationScreen?
        assertNotReleased(after: 0.1) {
            let screen = ConversationScreen(onDeinit: {})
            screen.configureBarButtonItem(style: .groupProfile) { _ in screen.push("group profile") }
            leaked = screen
            return screen
        }
        leaked?.clearBarButtonAction()
        XCTAssertNil(leaked)
        assertReleased(within: 1) {
            let screen = FixedConversationScreen(onDeinit: {})
            screen.configureBarButtonItem(style: .groupProfile) { screen, _ in screen.push("group profile") }
            screen.tapBarButton()
            return screen
        }
    }

    /// `[unowned self]` read after the owner was released traps (in a process of its own), with
    /// the runtime's own message as evidence.
    func testUnownedTrapsAfterRelease() throws {
        try assertReproduced("dance.unowned-traps-after-release", in: report(), of: danceExperiment)
        let v = try variant(.unownedAfterRelease)
        XCTAssertEqual(v.outcome, .crashed)
        XCTAssertTrue(
            v.evidence?.contains("Attempted to read an unowned reference") ?? false, v.evidence ?? "no evidence")
        XCTAssertEqual(
            try labels(.unownedAfterRelease), ["post", "scope-end", "deinit", "post-after-release"],
            "released first, called after")
    }

    // MARK: - Evidence before verdict

    /// A leak that the stored closure did not cause (something else keeps the owner) is not the
    /// leak the claim is about: its mechanism is not seen, so the claim is not judged, whatever
    /// the symptom. Run in this process with the variant's own measuring.
    func testALeakTheClosureDidNotCauseIsNotJudged() throws {
        let options = try danceExperiment.parser.parse(["--grace", "0.05"])
        let trial = OwnerTrial(
            VariantContext(
                variant: DanceVariant.heapStack.rawValue, options: options, inChild: false,
                parameters: DanceParameters(options)), owner: "thermostat")
        var keeper: Thermostat?  // holds the owner: the leak's cause, not the closure
        do {
            let thermostat = Thermostat(onDeinit: trial.ownerDeinit)
            trial.watch(thermostat)
            thermostat.start()
            trial.probe.stored(on: thermostat)
            keeper = thermostat
            trial.endScope(of: thermostat)
        }
        trial.settle { (thermostat: Thermostat) in thermostat.onReading = nil }
        let record = trial.record(heldBy: "the handler")
        XCTAssertEqual(record.outcome, .leaked)
        XCTAssertEqual(record.mechanism?.seen, false, record.mechanism?.what ?? "no mechanism")
        XCTAssertNotNil(keeper, "the keeper still holds the thermostat")
        keeper = nil
        XCTAssertFalse(trial.isAlive, "the keeper was what held it")
    }

    // MARK: - The experiment's contract

    /// Every variant's record carries a release timeline (its scope's end, and its deinit: leaks
    /// too, once their cycle is broken), and every claim was judged and reproduced.
    func testEveryVariantHasAReleaseTimeline() throws {
        let report = try report()
        XCTAssertEqual(report.variants.map(\.name), danceExperiment.variants.map(\.name))
        for v in report.variants {
            XCTAssertTrue(v.events?.contains { $0.label == "scope-end" } ?? false, "\(v.name): \(v.events ?? [])")
            XCTAssertTrue(v.events?.contains { $0.label == "deinit" } ?? false, "\(v.name): \(v.events ?? [])")
        }
        XCTAssertEqual(report.findings.map(\.id), danceExperiment.findingIDs)
        XCTAssertTrue(report.passed, report.findings.filter { !$0.reproduced }.map(\.summary).joined(separator: "\n"))
    }
}
