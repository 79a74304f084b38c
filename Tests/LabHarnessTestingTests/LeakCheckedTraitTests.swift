import LabHarnessTesting
import Synchronization
import Testing

/// `.leakChecked`: what the body tracks must be gone when it ends.
@Suite struct LeakCheckedTraitTests {
    final class Session {
        var onEvent: (() -> Void)?
    }

    @Test(.leakChecked) func aReleasedObjectPassesTheCheck() {
        let session = LeakChecked.track(Session(), "session")
        session.onEvent = {}
    }

    @Test func aSurvivorIsReportedByLabelAtTheLineWhereItWasTracked() async throws {
        let trackedLine = Mutex(0)
        let matched = Mutex(0)
        try await withKnownIssue {
            let trait = LeakCheckedTrait.leakChecked(grace: .milliseconds(100))
            try await trait.provideScope(for: Test.current!, testCase: nil) {
                trackedLine.withLock { $0 = #line + 1 }
                let session = LeakChecked.track(Session(), "cyclic session")
                session.onEvent = { _ = session }
            }
        } matching: { issue in
            let ok = issue.sourceLocation?.line == trackedLine.withLock { $0 }
                && issue.comments.contains {
                    $0.rawValue.contains("cyclic session was still alive 100 ms after the check began (checked at ")
                        && $0.rawValue.contains("held by a closure stored in its own property `onEvent`")
                }
            if ok { matched.withLock { $0 += 1 } }
            return ok
        }
        #expect(matched.withLock { $0 } == 1)
    }

    @Test func trackingOutsideALeakCheckedTestIsAnIssueNotASilentPass() {
        withKnownIssue {
            LeakChecked.track(Session(), "unchecked")
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("outside a test marked .leakChecked") }
        }
    }
}
