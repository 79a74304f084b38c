@testable import CallbackExperiment
import LabHarness
import XCTest

/// In the scenarios whose app calls its handler within the lookup (completion-handler,
/// double-call, delegate-completion), the library's watchdog can settle the operation first only
/// when a stall held the app's reply past the library's patience. The trial then showed the
/// watchdog's path, not its claim's: double-call's "the second call reached the once-guard,
/// which refused it" was true of calls refused because the library had given up, and the claim
/// read reproduced; delegate-completion's correct delegate ended `failed`, a forbidden outcome.
/// Such a trial now says what happened and is graded neither way.
final class CallbackStallTests: XCTestCase {
    private func context() throws -> VariantContext {
        let options = try callbackExperiment.parser.parse(["--quick"])
        return VariantContext(
            variant: "double-call", options: options, inChild: false, parameters: CallbackParameters(options))
    }

    func testALibraryThatGaveUpBeforeTheAppsCallLeavesTheMechanismUnseen() throws {
        let context = try context()
        let library = context.library(.completionHandler(context.app().onAppQueue))
        XCTAssertNil(context.libraryGaveUp(library), "a library that did not give up: the trial judges as before")
        library.diagnosticLog.update { $0.append(Diagnostic(kind: .neverCalled, message: "not called within 0.75 s")) }
        let why = try XCTUnwrap(context.libraryGaveUp(library))
        XCTAssertFalse(why.seen)
        XCTAssertTrue(why.what.contains("the library's watchdog settled the operation before the app's call"), why.what)
    }

    /// A scenario deadline passed on a quiet machine is the program's failure (forbidden, with no
    /// mechanism to excuse it); the stall allowance is what the deadline grants beyond the lookup
    /// and the library's patience.
    func testAScenarioDeadlinePassedWithoutAStallIsTheProgramsFailure() throws {
        let record = try context().failed("the conversation did not show")
        XCTAssertEqual(record.outcome, .failed)
        XCTAssertNil(record.mechanism, "no stall was seen: nothing excuses it")
        XCTAssertTrue(record.evidence?.hasPrefix("the conversation did not show within") ?? false)
    }
}
