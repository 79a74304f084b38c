import Foundation
import LabHarness

/// Asserts that `block` finishes within `timeout` seconds, without hanging the test when it
/// does not: the block runs on a thread of its own, and if it overruns the assertion fails and
/// the test goes on while that thread is abandoned (a thread cannot be killed). For code that
/// may never return, or that blocks the threads it runs on for good, run it in a child process
/// with `ChildProcess` instead. Returns the block's duration, `nil` on failure.
@discardableResult
public func assertCompletes(within timeout: Double, _ message: @autoclosure () -> String = "",
                            reporter: FailureReporter = .xctest,
                            file: StaticString = #filePath, line: UInt = #line,
                            _ block: @escaping @Sendable () -> Void) -> Double? {
    let done = DispatchSemaphore(value: 0)
    let start = MonotonicClock.now()
    let finishedAt = ResultBox<Double>()
    NamedThread.start("lab.completes") {
        block()
        finishedAt.set(MonotonicClock.now())
        done.signal()
    }
    guard done.wait(timeout: .now() + .milliseconds(Int(timeout * 1000))) == .success else {
        let extra = message()
        reporter.fail("did not complete within \(Format.seconds(timeout)); its thread is left running" + (extra.isEmpty ? "" : ": \(extra)"), file, line)
        return nil
    }
    return (finishedAt.get() ?? MonotonicClock.now()) - start
}

/// Asserts that an async operation finishes within `timeout` seconds. The operation runs in a
/// task of its own; if it overruns, the assertion fails, the task is cancelled and abandoned.
@discardableResult
public func assertCompletes(within timeout: Double, _ message: @autoclosure () -> String = "",
                            reporter: FailureReporter = .xctest,
                            file: StaticString = #filePath, line: UInt = #line,
                            _ operation: @escaping @Sendable () async -> Void) async -> Double? {
    let start = MonotonicClock.now()
    let finishedAt = ResultBox<Double>()
    let task = Task {
        await operation()
        finishedAt.set(MonotonicClock.now())
    }
    while finishedAt.get() == nil && MonotonicClock.now() - start < timeout {
        try? await Task.sleep(nanoseconds: 2_000_000)
    }
    guard let end = finishedAt.get() else {
        task.cancel()
        let extra = message()
        reporter.fail("did not complete within \(Format.seconds(timeout)); its task was cancelled and abandoned" + (extra.isEmpty ? "" : ": \(extra)"), file, line)
        return nil
    }
    return end - start
}

/// What `assertThreadPeak` counts.
public enum ThreadCounting: Sendable {
    /// Threads added over the count just before the block started.
    case added
    /// All threads of the process.
    case total
}

/// Asserts that while `block` runs the process's thread count stays under `limit`, counted as
/// threads `added` to the count before the block (default) or as the `total`. The count is
/// sampled every `interval` seconds on a dedicated thread (not counted), so spikes shorter
/// than the interval can be missed. Returns the timeline.
@discardableResult
public func assertThreadPeak(staysUnder limit: Int, counting: ThreadCounting = .added, interval: Double = 0.002,
                             _ message: @autoclosure () -> String = "",
                             reporter: FailureReporter = .xctest,
                             file: StaticString = #filePath, line: UInt = #line,
                             _ block: () throws -> Void) rethrows -> ThreadTimeline {
    let sampler = ThreadSampler(interval: interval)
    sampler.start()
    let baseline = sampler.latest
    do {
        try block()
    } catch {
        sampler.stop()
        throw error
    }
    let timeline = sampler.stop()
    let measured = counting == .added ? timeline.peak - baseline : timeline.peak
    if measured >= limit {
        let what = counting == .added ? "added \(measured) threads (peak \(timeline.peak) over \(baseline) before)" : "peaked at \(measured) threads"
        let extra = message()
        reporter.fail("the block \(what); the limit was under \(limit)" + (extra.isEmpty ? "" : ": \(extra)"), file, line)
    }
    return timeline
}

/// Asserts that the callback handed to `start` is called exactly once: the first call must
/// come within `timeout` seconds, and no second call within `grace` seconds after it.
/// Returns the first call (with its thread and time), or `nil` when there was none.
@discardableResult
public func assertCalledExactlyOnce<Value: Sendable>(within timeout: Double = 1, grace: Double = 0.1,
                                                     _ message: @autoclosure () -> String = "",
                                                     reporter: FailureReporter = .xctest,
                                                     file: StaticString = #filePath, line: UInt = #line,
                                                     _ start: (@escaping @Sendable (Value) -> Void) -> Void) -> CallProbe<Value>.Call? {
    let probe = CallProbe<Value>()
    start(probe.callback)
    return checkExactlyOnce(probe, timeout: timeout, grace: grace, message(), reporter: reporter, file: file, line: line)
}

func checkExactlyOnce<Value: Sendable>(_ probe: CallProbe<Value>, timeout: Double, grace: Double, _ message: String,
                                       reporter: FailureReporter, file: StaticString, line: UInt) -> CallProbe<Value>.Call? {
    let extra = message
    let suffix = extra.isEmpty ? "" : ": \(extra)"
    guard probe.waitForCall(within: timeout) else {
        reporter.fail("the callback was never called within \(Format.seconds(timeout))" + suffix, file, line)
        return nil
    }
    probe.settle(for: grace)
    if probe.count > 1 {
        reporter.fail("the callback was called \(probe.count) times; it must be called exactly once" + suffix, file, line)
    }
    return probe.first
}

/// `assertCalledExactlyOnce` for callbacks that take no value.
@discardableResult
public func assertCalledExactlyOnce(within timeout: Double = 1, grace: Double = 0.1,
                                    _ message: @autoclosure () -> String = "",
                                    reporter: FailureReporter = .xctest,
                                    file: StaticString = #filePath, line: UInt = #line,
                                    _ start: (@escaping @Sendable () -> Void) -> Void) -> CallProbe<Void>.Call? {
    let probe = CallProbe<Void>()
    start(probe.plainCallback)
    return checkExactlyOnce(probe, timeout: timeout, grace: grace, message(), reporter: reporter, file: file, line: line)
}

import Synchronization

/// A value set once from another thread.
final class ResultBox<T: Sendable>: Sendable {
    private let storage = Mutex<T?>(nil)
    func set(_ value: T) { storage.withLock { $0 = value } }
    func get() -> T? { storage.withLock { $0 } }
}
