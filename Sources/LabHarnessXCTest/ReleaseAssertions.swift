import LabHarness

/// Asserts that the object `make` returns is released within `timeout` seconds once `make`'s
/// own references are gone. Fails with how long it waited; returns the seconds it took to go
/// (`nil` on failure).
///
/// ```swift
/// assertReleased(within: 1) {
///     let controller = Controller()
///     controller.start()          // stores closures, schedules work...
///     return controller
/// }
/// ```
@discardableResult
public func assertReleased<T: AnyObject>(within timeout: Double = 1, _ message: @autoclosure () -> String = "",
                                         reporter: FailureReporter = .xctest,
                                         file: StaticString = #filePath, line: UInt = #line,
                                         _ make: () -> T) -> Double? {
    let tracker = ReleaseTracker()
    let start: Double
    do {
        let object = make()
        tracker.track(object, "object")
        start = MonotonicClock.now()
    }
    tracker.markScopeEnd("object")
    guard tracker.waitUntilReleased("object", within: timeout) else {
        let extra = message()
        reporter.fail("\(T.self) was not released within \(Format.seconds(timeout)) of its last outside reference going away (a retain cycle, or something still holds it)" + (extra.isEmpty ? "" : ": \(extra)"), file, line)
        return nil
    }
    return (tracker.releasedAt("object") ?? MonotonicClock.now()) - start
}

/// Asserts that `object` is released within `timeout` seconds after this call sets it to `nil`.
@discardableResult
public func assertReleased<T: AnyObject>(_ object: inout T?, within timeout: Double = 1,
                                         _ message: @autoclosure () -> String = "",
                                         reporter: FailureReporter = .xctest,
                                         file: StaticString = #filePath, line: UInt = #line) -> Double? {
    guard let strong = object else { return 0 }
    let tracker = ReleaseTracker()
    tracker.track(strong, "object")
    _ = consume strong
    object = nil
    let start = MonotonicClock.now()
    tracker.markScopeEnd("object")
    guard tracker.waitUntilReleased("object", within: timeout) else {
        let extra = message()
        reporter.fail("\(T.self) was not released within \(Format.seconds(timeout)) after its last reference here was dropped" + (extra.isEmpty ? "" : ": \(extra)"), file, line)
        return nil
    }
    return (tracker.releasedAt("object") ?? MonotonicClock.now()) - start
}

/// Asserts that the object `make` returns is still alive `after` seconds: for documenting a
/// leak on purpose (a retain cycle a test wants to show).
@discardableResult
public func assertNotReleased<T: AnyObject>(after duration: Double = 0.2, _ message: @autoclosure () -> String = "",
                                            reporter: FailureReporter = .xctest,
                                            file: StaticString = #filePath, line: UInt = #line,
                                            _ make: () -> T) -> Bool {
    let tracker = ReleaseTracker()
    do {
        let object = make()
        tracker.track(object, "object")
    }
    if tracker.waitUntilReleased("object", within: duration) {
        let extra = message()
        reporter.fail("\(T.self) was released, but it was expected to stay alive (leak) for \(Format.seconds(duration))" + (extra.isEmpty ? "" : ": \(extra)"), file, line)
        return false
    }
    return true
}

/// Tracks objects during a test and checks they all went: create one in `setUp`, `track` what
/// the code under test creates, call `assertAllReleased` in `tearDown`.
public final class LeakCheck: Sendable {
    private let tracker = ReleaseTracker()
    private let labels = LabelList()

    public init() {}

    /// Tracks `object` weakly under `label`; returns it for chaining.
    @discardableResult
    public func track<T: AnyObject>(_ object: T, _ label: String? = nil) -> T {
        let name = label ?? "\(T.self)#\(labels.count + 1)"
        labels.append(name)
        tracker.track(object, name)
        return object
    }

    /// Fails once, naming every tracked object still alive after `timeout` seconds.
    public func assertAllReleased(within timeout: Double = 1, reporter: FailureReporter = .xctest,
                                  file: StaticString = #filePath, line: UInt = #line) {
        let deadline = MonotonicClock.now() + timeout
        for label in labels.all { _ = tracker.waitUntilReleased(label, within: max(0, deadline - MonotonicClock.now())) }
        let alive = labels.all.filter(tracker.isAlive)
        if !alive.isEmpty {
            reporter.fail("still alive after \(Format.seconds(timeout)): \(alive.joined(separator: ", "))", file, line)
        }
    }
}

import Synchronization

final class LabelList: Sendable {
    private let storage = Mutex<[String]>([])
    func append(_ label: String) { storage.withLock { $0.append(label) } }
    var all: [String] { storage.withLock { $0 } }
    var count: Int { storage.withLock { $0.count } }
}
