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
        public func failure(timeout: Seconds, checkedAt check: FailureSite? = nil) -> String {
            let place = check.map { " (checked at \(($0.filePath as NSString).lastPathComponent):\($0.line))" } ?? ""
            return "\(label) was still alive \(Format.seconds(timeout)) after the check began\(place): "
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

    /// The tracked objects still alive after waiting up to `timeout` for all of them (turning
    /// the main run loop meanwhile when on the main thread).
    public func survivors(within timeout: Seconds) -> [Survivor] {
        let list = entries.withLock { $0 }
        MainQueueFriendlyWait.until(within: timeout) { list.allSatisfy { !tracker.isAlive($0.label) } }
        return survivors(list)
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
        let list = entries.withLock { $0 }
        _ = await MainQueueFriendlyWait.until(within: timeout) { list.allSatisfy { !tracker.isAlive($0.label) } }
        return survivors(list)
    }
}
