import Foundation
import Synchronization

/// Tracks objects during a test and checks they all went: `track` what the code under test
/// creates, then assert them all released (`assertAllReleased` in `tearDown`, or the
/// `.leakChecked` trait in Swift Testing, which does it when the test ends).
public final class LeakCheck: Sendable {
    /// One tracked object still alive at the check, and where it was tracked.
    public struct Survivor: Sendable {
        public var label: String
        public var site: FailureSite?
        /// Strong references that held it at the check (`nil` if it went meanwhile).
        public var strongReferences: Int?
        /// Where it is held among the check's surviving objects (`HolderSearch`); `nil` when
        /// not looked for.
        public var holders: [String]? = nil

        /// `session was still alive 500 ms after the check began (at File.swift:40): 1 strong
        /// reference still holds it (…)`.
        /// `allowed`: the seconds the wait was extended for the machine's stalls (`Outcome`).
        public func failure(timeout: Seconds, checkedAt check: FailureSite? = nil, allowed: Seconds = 0) -> String {
            let place = check.map { " (checked at \(($0.filePath as NSString).lastPathComponent):\($0.line))" } ?? ""
            return "\(label) was still alive \(Format.seconds(timeout)) after the check began\(place)"
                + StallAllowance.clause(allowed) + ": "
                + HarnessAssertions.holders(strongReferences, found: holders, knows: "the objects this check tracks")
        }
    }

    private let tracker = ReleaseTracker()
    private let entries = Mutex<[(label: String, site: FailureSite?)]>([])

    public init() {}

    /// Tracks `object` weakly under `label` (default: its type and a number); returns it for
    /// chaining. `site` is where it was tracked, for reporting a survivor at that line. A label
    /// given again names another object: it is reported as `label #2` (then `#3` …), and every
    /// object tracked is checked, not only the last under its label.
    @_disfavoredOverload
    @discardableResult
    public func track<T: AnyObject>(_ object: T, _ label: String? = nil, site: FailureSite? = nil) -> T {
        let name = entries.withLock { list in
            let base = label ?? "\(T.self)#\(list.count + 1)"
            var name = base, again = 1
            while list.contains(where: { $0.label == name }) {
                again += 1
                name = "\(base) #\(again)"
            }
            list.append((name, site))
            return name
        }
        tracker.track(object, name)
        return object
    }

    /// What a check found: the survivors, and the time its wait was given for the machine's
    /// stalls. The wait goes on past `timeout` for as long as a thread of the harness's own was
    /// held up meanwhile (at most 5 s): a stall of the whole machine must not turn a release due
    /// within the budget into a leak.
    public struct Outcome: Sendable {
        public var survivors: [Survivor]
        /// Seconds added to the wait for the machine's stalls (0 when none).
        public var stallAllowance: Seconds
        /// Whether every object went, the last after the budget (in the added time, or seen at
        /// the budget's last look): a pass the stall explains, which a report should mention
        /// (`HarnessAssertions.allReleased` notes it on stdout). `stallAllowance` is then what
        /// the machine took from the whole wait.
        public var neededAllowance: Bool

        /// The note a pass that needed the allowance deserves (`nil` for any other outcome):
        /// what a report of the check prints, so that such a pass is never silent.
        public func allowanceNote(budget: Seconds) -> String? {
            guard neededAllowance, survivors.isEmpty else { return nil }
            return StallAllowance.note("every tracked object was released", budget: budget, lost: stallAllowance)
        }
    }

    /// The tracked objects still alive after waiting up to `timeout` for all of them (turning
    /// the main run loop meanwhile when on the main thread), plus the time the machine's stalls
    /// took from the wait (`Outcome`).
    public func survivors(within timeout: Seconds) -> [Survivor] { check(within: timeout).survivors }

    /// `survivors(within:)`, with the stall allowance the wait was given.
    public func check(within timeout: Seconds) -> Outcome {
        let list = entries.withLock { $0 }, start = MonotonicClock.now()
        let waited = StallAllowance.wait(budget: timeout) { budget in
            MainQueueFriendlyWait.until(within: budget) { list.allSatisfy { !tracker.isAlive($0.label) } }
        }
        return outcome(list, start: start, timeout: timeout, waited)
    }

    private func survivors(_ list: [(label: String, site: FailureSite?)]) -> [Survivor] {
        let alive = list.filter { tracker.isAlive($0.label) }
        let labels = alive.map(\.label)
        return alive.map {
            Survivor(
                label: $0.label, site: $0.site, strongReferences: tracker.strongReferences($0.label),
                holders: tracker.holders(of: $0.label, among: labels))
        }
    }

    /// `survivors(within:)` without blocking the thread. It runs on the caller's actor
    /// (`isolation`), so from a `@MainActor` test the survivors' stored properties are read for
    /// holders on the main actor, not while main-actor code changes them.
    public func survivors(
        within timeout: Seconds, isolation: isolated (any Actor)? = #isolation
    ) async -> [Survivor] {
        await check(within: timeout).survivors
    }

    /// `check(within:)` without blocking the thread, on the caller's actor as `survivors`.
    public func check(within timeout: Seconds, isolation: isolated (any Actor)? = #isolation) async -> Outcome {
        let list = entries.withLock { $0 }, start = MonotonicClock.now()
        let waited = await StallAllowance.wait(budget: timeout) { budget in
            await MainQueueFriendlyWait.until(within: budget) { list.allSatisfy { !tracker.isAlive($0.label) } }
        }
        return outcome(list, start: start, timeout: timeout, waited)
    }

    /// The outcome of a wait begun at `start`: a pass needed the allowance when the last object
    /// went (as the polls saw it) after the budget.
    private func outcome(
        _ list: [(label: String, site: FailureSite?)], start: Seconds, timeout: Seconds,
        _ waited: StallAllowance.Outcome
    ) -> Outcome {
        let left = survivors(list)
        let last = list.compactMap { tracker.releasedAt($0.label) }.max() ?? start
        let late = left.isEmpty && last - start > timeout
        return Outcome(survivors: left, stallAllowance: late ? waited.lost : waited.allowed, neededAllowance: late)
    }
}
