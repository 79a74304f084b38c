// The README's Swift Testing example, word for word (ReadmeSyncXCTests checks it still
// matches), nested in this target's one serialized suite (thread counts are process-wide).
import Foundation
import HarnessUserKit
import LabHarnessTesting
import Testing

extension HarnessUserSwiftTests {
    /// One serialized suite: thread counts are process-wide (see "What the helpers cannot see").
    @Suite(.serialized, .hangWatch(after: 30)) struct MyLibrarySwiftTests {
        @Test func controllerIsReleased() {
            assertReleased(within: .milliseconds(500)) { Controller().started() }
        }

        @MainActor @Test func modelIsReleased() async {
            await assertReleased(within: 0.5) {
                let model = Model()
                model.refresh()
                return model
            }
        }

        @Test(.leakChecked) func sessionGoesAway() {
            let session = LeakChecked.track(Session(), "session")  // a survivor is reported at this line
            session.start()
        }

        @Test(.threadBudget(added: 8, reportsPass: true)) func requestsShareThreads() {
            Client().sendAll(count: 1000)
        }

        @Test func parserTrapsOnBadInput() async {
            await #expect(processExitsWith: .failure) { _ = Parser().parse(badInput) }
        }

        @Test func fetchCompletesOrSaysWhere() async {
            // Had it hung, the child's failure, with where every thread was, would be an issue here.
            await #expect(processExitsWith: .success) {
                await MainActor.run { _ = assertCompletes(within: 2) { _ = try? Client().fetchSynchronously() } }
            }
        }
    }
}
