import Foundation
import LabHarnessTesting
import Synchronization
import Testing

/// Thread counts are process-wide, so every thread test is in one serialized suite.
@Suite(.serialized) struct ThreadTraitTests {
    /// Threads parked until `release()`.
    final class Parked: Sendable {
        let gate = DispatchSemaphore(value: 0)
        let exited = DispatchSemaphore(value: 0)
        let count: Int

        init(_ count: Int, name: String) {
            self.count = count
            let started = DispatchSemaphore(value: 0)
            for _ in 0..<count {
                NamedThread.start(name) { [gate, exited] in
                    started.signal()
                    gate.wait()
                    exited.signal()
                }
            }
            for _ in 0..<count { started.wait() }
        }

        func release() {
            for _ in 0..<count { gate.signal() }
            for _ in 0..<count { exited.wait() }
        }
    }

    @Test(.threadBudget(added: 40)) func aFrugalBodyStaysInItsBudget() {
        var total = 0.0
        for i in 0..<100_000 { total += Double(i) }
        #expect(total > 0)
    }

    @Test func aHungryBodyFailsItsBudgetNamingTheThreads() async throws {
        let trait = ThreadBudgetTrait.threadBudget(added: 8)
        let traitLine = #line - 1
        let parked = Mutex<Parked?>(nil)
        let matched = Mutex(0)
        try await withKnownIssue {
            try await trait.provideScope(for: Test.current!, testCase: nil) {
                parked.withLock { $0 = Parked(8, name: "budget.parked") }
            }
        } matching: { issue in
            let ok = issue.sourceLocation?.line == traitLine && issue.comments.contains { $0.rawValue.contains("8 × budget.parked") }
            if ok { matched.withLock { $0 += 1 } }
            return ok
        }
        parked.withLock { $0?.release() }
        #expect(matched.withLock { $0 } == 1)
    }

    @Test func assertThreadPeakCountsNewThreadsByIdentity() {
        let parked = Mutex<Parked?>(nil)
        let matched = Mutex(0)
        let line = #line + 2
        withKnownIssue {
            assertThreadPeak(staysUnder: 5) {
                parked.withLock { $0 = Parked(5, name: "peak.parked") }
            }
        } matching: { issue in
            let ok = issue.sourceLocation?.line == line && issue.comments.contains { $0.rawValue.contains("5 × peak.parked") }
            if ok { matched.withLock { $0 += 1 } }
            return ok
        }
        parked.withLock { $0?.release() }
        #expect(matched.withLock { $0 } == 1)
    }

    @Test func anAsyncBodyIsMeasuredToo() async {
        await assertThreadPeak(staysUnder: 40) {
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
    }
}
