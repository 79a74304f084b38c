@testable import LabHarness
import RunloopExperiment
import XCTest

/// The two findings about blocked callers apply only to runs whose callers set up their premise.
/// With thread callers the global-queue claim was judged anyway, "not judged (mechanism not
/// seen)", so `exp-runloop --quick --caller thread`, a documented option, could never exit 0;
/// and blocked-callers-throttle was "not judged" with the reason variant-missing though both of
/// its variants ran. Now each is "not applicable to this run", with the reason. Async callers
/// keep the global-queue claim: they wait for a pool thread to resume on, which the run loops
/// hold (notes/runloop.md, exercise 1).
final class CallerPremiseTests: XCTestCase {
    func premises(_ caller: String) throws -> (globalQueue: String?, throttle: String?) {
        let options = try CommandLineParser(program: "exp-runloop", flags: runloopExperiment.flags)
            .parse(["--caller", caller])
        let claim = try XCTUnwrap(runloopExperiment.variants.first { $0.name == "global-queue" }?.claim)
        XCTAssertEqual(claim.id, "runloop.global-queue-misses-timeouts")
        let throttle = try XCTUnwrap(runloopExperiment.findings.first { $0.id == "runloop.blocked-callers-throttle" })
        return (claim.premiseMissing?(options), throttle.premiseMissing(options))
    }

    func testCallersThatBlockThePoolSetUpTheGlobalQueueClaim() throws {
        for caller in ["global", "async", "operation-queue"] {
            XCTAssertNil(try premises(caller).globalQueue, caller)
        }
        XCTAssertNil(try premises("global").throttle)
    }

    func testThreadCallersLeaveTheGlobalQueueClaimNotApplicable() throws {
        let missing = try premises("thread").globalQueue
        XCTAssertTrue(
            missing?.contains("wait on threads of their own and leave the pool free") ?? false, "\(missing ?? "")")
    }

    func testCallersOtherThanGlobalOnesLeaveTheThrottleNotApplicable() throws {
        for caller in ["thread", "async", "operation-queue"] {
            let missing = try premises(caller).throttle
            XCTAssertTrue(
                missing?.contains("compares global-queue callers with async ones") ?? false,
                "\(caller): \(missing ?? "")")
        }
    }

    /// A sweep's report names what its points ran: async callers (the designs race them), and
    /// no `tasks`, since each point sets its own (the sizes are under `sweep`). It said the
    /// command line's defaults, `"caller":"global","tasks":300`, which no trial of it ran.
    func testASweepsReportParametersSayWhatItsPointsRan() throws {
        let parser = runloopExperiment.parser
        let sweep = runloopExperiment.reportParameters(try parser.parse(["--sweep", "10,20"]))
        XCTAssertEqual(sweep["caller"], .text("async"))
        XCTAssertNil(sweep["tasks"])
        XCTAssertEqual(sweep["sweep"], .text("10,20"))
        let plain = runloopExperiment.reportParameters(try parser.parse([]))
        XCTAssertEqual(plain["caller"], .text("global"))
        XCTAssertNotNil(plain["tasks"])
    }
}
