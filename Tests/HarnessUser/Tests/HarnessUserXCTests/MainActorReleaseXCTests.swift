import Foundation
import HarnessUserKit
import LabHarnessXCTest
import XCTest

/// The release assertions without a closure (`assertReleased(&object)`, `LeakCheck`'s
/// `assertAllReleased`) and `assertNotReleased` in a `@MainActor` async test: `await` reaches
/// their async forms, which leave the main actor free while they wait, so a model that the main
/// actor releases a moment later is seen going. Before those forms existed the compiler took the
/// synchronous ones, which held the main actor for the whole wait: each good case below failed
/// (`BrieflyHeldModel was not released within 1.00 s …`, `model was still alive 1.00 s after the
/// check began`) and `assertNotReleased` passed for a model that was released.
final class MainActorReleaseXCTests: CapturingTestCase {
    // MARK: assertReleased(&object)

    /// Fixed: released once its main-actor task has run.
    @MainActor func testABrieflyHeldModelDroppedInPlace_passes() async {
        var model: BrieflyHeldModel? = BrieflyHeldModel()
        model?.refresh()
        let took = await assertReleased(&model, within: 1)
        XCTAssertNotNil(took)
        XCTAssertNil(model)
    }

    /// Fixed: released once the main queue has run its block.
    @MainActor func testAMainQueueHeldModelDroppedInPlace_passes() async {
        var model: MainQueueHeldModel? = MainQueueHeldModel()
        model?.refresh()
        let took = await assertReleased(&model, within: 1)
        XCTAssertNotNil(took)
    }

    /// Bad: its stored closure captures it; the main actor runs its task, and it stays.
    @MainActor func testASelfObservingModelDroppedInPlace_failsNamingTheClosureThatHoldsIt() async {
        var model: SelfObservingModel? = SelfObservingModel()
        model?.refresh()
        await expectOneFailure(
            atLine: #line + 3, containing: "SelfObservingModel was not released within 200 ms",
            "held by a closure stored in its own property `onChange`, which captured it (a retain cycle)"
        ) {
            await assertReleased(&model, within: .milliseconds(200))
        }
    }

    // MARK: LeakCheck

    /// Fixed: both models go once the main actor has run what they scheduled.
    @MainActor func testALeakCheckOfBrieflyHeldModels_passes() async {
        let check = LeakCheck()
        do {
            check.track(BrieflyHeldModel(), "model").refresh()
            check.track(MainQueueHeldModel(), "queued model").refresh()
        }
        await check.assertAllReleased(within: 1)
    }

    /// Bad: the check fails at the line that tracked the model, naming what holds it.
    @MainActor func testALeakCheckOfASelfObservingModel_failsNamingTheClosureThatHoldsIt() async {
        let check = LeakCheck()
        let trackedLine = #line + 2
        do {
            check.track(SelfObservingModel(), "model").refresh()
        }
        await expectOneFailure(atLine: trackedLine, containing: "model was still alive 200 ms after the check began",
                               "held by a closure stored in its own property `onChange`") {
            await check.assertAllReleased(within: .milliseconds(200))
        }
    }

    // MARK: assertNotReleased

    /// A leak documented on purpose: the sticky model's task keeps it for ever.
    @MainActor func testAStickyModelDocumentedAsALeak_passes() async {
        let stayed = await assertNotReleased(after: 0.3) {
            let model = StickyModel()
            model.refresh()
            return model
        }
        XCTAssertTrue(stayed)
    }

    /// Not a leak: the model goes as soon as the main actor runs its task, and the documented
    /// "leak" fails.
    @MainActor func testABrieflyHeldModelDocumentedAsALeak_fails() async {
        await expectOneFailure(
            atLine: #line + 2, containing: "BrieflyHeldModel was released, but it was expected to stay alive"
        ) {
            await assertNotReleased(after: 0.5) {
                let model = BrieflyHeldModel()
                model.refresh()
                return model
            }
        }
    }
}
