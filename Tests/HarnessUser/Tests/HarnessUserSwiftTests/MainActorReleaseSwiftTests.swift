import Foundation
import HarnessUserKit
import LabHarnessTesting
import Testing

extension HarnessUserSwiftTests {
    /// `assertReleased(&object)`, `LeakCheck`'s `assertAllReleased` and `assertNotReleased` in a
    /// `@MainActor` async test (see `MainActorReleaseXCTests`): on Linux, Swift Testing's main
    /// actor is the main queue, which the synchronous forms held for their whole wait.
    @Suite struct MainActorRelease {
        @MainActor @Test func aBrieflyHeldModelDroppedInPlace_passes() async {
            var model: BrieflyHeldModel? = BrieflyHeldModel()
            model?.refresh()
            #expect(await assertReleased(&model, within: 1) != nil)
            #expect(model == nil)
        }

        @MainActor @Test func aMainQueueHeldModelDroppedInPlace_passes() async {
            var model: MainQueueHeldModel? = MainQueueHeldModel()
            model?.refresh()
            #expect(await assertReleased(&model, within: 1) != nil)
        }

        @MainActor @Test func aSelfObservingModelDroppedInPlace_isRecordedNamingTheClosureThatHoldsIt() async {
            var model: SelfObservingModel? = SelfObservingModel()
            model?.refresh()
            await HarnessUserSwiftTests.expectOneIssue(
                atLine: #line + 2, containing: "held by a closure stored in its own property `onChange`, which captured"
            ) {
                await assertReleased(&model, within: .milliseconds(200))
            }
        }

        /// A synchronous `@MainActor` test runs inside a task on the main queue, which a
        /// synchronous wait holds (the compiler's `noasync` check sees no async code here): the
        /// model cannot go while it waits, and the failure says why instead of blaming the model
        /// alone. The fix is the test above: `async`, and `await`.
        @MainActor @Test func aBrieflyHeldModelInASynchronousTest_isRecordedSayingTheWaitHeldTheMainActor() {
            var model: BrieflyHeldModel? = BrieflyHeldModel()
            model?.refresh()
            HarnessAssertions.$secondLookFloor.withValue(0.3) {  // the main actor is held meanwhile
                HarnessUserSwiftTests.expectOneIssue(
                    atLine: #line + 2, containing: "(note: this synchronous wait ran on the main actor, inside a task"
                ) {
                    assertReleased(&model, within: 0.2)
                }
            }
        }

        @MainActor @Test func aLeakCheckOfBrieflyHeldModels_passes() async {
            let check = LeakCheck()
            do {
                check.track(BrieflyHeldModel(), "model").refresh()
                check.track(MainQueueHeldModel(), "queued model").refresh()
            }
            await check.assertAllReleased(within: 1)
        }

        @MainActor @Test func aLeakCheckOfASelfObservingModel_isRecordedNamingTheClosureThatHoldsIt() async {
            let check = LeakCheck()
            let trackedLine = #line + 2
            do {
                check.track(SelfObservingModel(), "model").refresh()
            }
            await HarnessUserSwiftTests.expectOneIssue(
                atLine: trackedLine, containing: "held by a closure stored in its own property `onChange`"
            ) {
                await check.assertAllReleased(within: .milliseconds(200))
            }
        }

        /// `survivors(within:)`, for a report of one's own: it runs on the caller's actor, so the
        /// model the main actor lets go is gone, and the one that keeps itself says what holds it.
        @MainActor @Test func aLeakChecksSurvivorsSayWhatHoldsThem() async {
            let check = LeakCheck()
            do {
                check.track(BrieflyHeldModel(), "model").refresh()
                check.track(SelfObservingModel(), "cyclic model").refresh()
            }
            let survivors = await check.survivors(within: 0.5)
            #expect(survivors.map(\.label) == ["cyclic model"])
            #expect(survivors.first?.strongReferences == 1)
            #expect(survivors.first?.holders == ["a closure stored in its own property `onChange`, which captured it (a retain cycle)"])
        }

        @MainActor @Test func aStickyModelDocumentedAsALeak_passes() async {
            let stayed = await assertNotReleased(after: 0.3) {
                let model = StickyModel()
                model.refresh()
                return model
            }
            #expect(stayed)
        }

        @MainActor @Test func aBrieflyHeldModelDocumentedAsALeak_isRecorded() async {
            await HarnessUserSwiftTests.expectOneIssue(
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
}
