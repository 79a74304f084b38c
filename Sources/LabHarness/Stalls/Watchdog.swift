import Foundation
import Synchronization

/// What a watchdog saw when it declared a stall.
public struct StallReport: Sendable, Equatable {
    /// The progress counter's value when the stall was declared.
    public var progress: Int
    /// Monotonic instant of the last progress before the stall.
    public var lastProgressAt: Seconds
    /// Monotonic instant the watchdog declared the stall.
    public var detectedAt: Seconds
    /// The window the watchdog was configured with.
    public var window: Seconds
    /// The process's threads and their states at detection time.
    public var threads: [ThreadInfo]
    /// Every other thread's stack at detection time, when the watchdog was asked for them
    /// (`capturesStacks`); its note says when the platform gives none.
    public var stacks: StackSnapshot? = nil

    /// For evidence lines: `no progress for 3.0 s at 0 (27 threads: 1 R, 26 S)`.
    public var summary: String {
        "no progress for \(Format.seconds(detectedAt - lastProgressAt)) at \(progress) (\(ThreadCensus.describe(threads)))"
    }
}

/// Watches a progress counter from its own thread and reports when it stops moving.
///
/// "No progress for `window` seconds" is a stall. The watchdog fires `onStall` once per stall
/// (and again only after progress resumes and stops again), from its own thread, so it works even
/// when every other thread of the process is blocked, the main thread included. Use it to turn a
/// hang into a measured outcome: the handler can record what it found and end the trial.
public final class Watchdog: Sendable {
    public let window: Seconds
    private let counter: ProgressCounter
    private let onStall: @Sendable (StallReport) -> Void
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let reports = Mutex<[StallReport]>([])
    private let started = Atomic<Bool>(false)
    private let capturesStacks: Bool

    /// - Parameters:
    ///   - counter: the progress to watch.
    ///   - window: seconds without progress that make a stall (at least 0.01).
    ///   - capturesStacks: take every thread's stack when a stall is declared (up to about 2 s
    ///     on the watchdog's thread, before `onStall`; see `StackCapture`).
    ///   - onStall: called on the watchdog's thread with what it saw.
    public init(
        counter: ProgressCounter, window: Seconds, capturesStacks: Bool = false,
        onStall: @escaping @Sendable (StallReport) -> Void = { _ in }
    ) {
        self.counter = counter
        self.window = Swift.max(window, 0.01)
        self.capturesStacks = capturesStacks
        self.onStall = onStall
    }

    /// Every stall reported so far.
    public var stalls: [StallReport] { reports.withLock { $0 } }

    public func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        NamedThread.startInstrument("lab.watchdog", stackSize: 256 * 1024) { [self] in watch() }
    }

    /// Stops watching; waits (briefly) for the watchdog thread to exit.
    public func stop() {
        guard started.load(ordering: .acquiring), !stopping.exchange(true, ordering: .acquiringAndReleasing) else {
            return
        }
        _ = finished.wait(timeout: .now() + .seconds(2))
    }

    private func watch() {
        // Polling at a fiftieth of the window (bounded to 1...20 ms) keeps detection within
        // window + 20 ms at a cost of a few wake-ups per second.
        let poll = Swift.min(Swift.max(window / 50, 0.001), 0.02)
        let begin = MonotonicClock.now()
        var seen = counter.value
        var seenAt = begin
        var reported = false
        while !stopping.load(ordering: .acquiring) {
            MonotonicClock.sleep(for: poll)
            let now = MonotonicClock.now()
            let current = counter.value
            if current != seen {
                seen = current
                seenAt = Swift.max(counter.lastChange, begin)
                reported = false
            } else if !reported && now - seenAt >= window {
                reported = true
                let report = StallReport(
                    progress: current, lastProgressAt: seenAt, detectedAt: now,
                    window: window, threads: ThreadCensus.threads(),
                    stacks: capturesStacks ? StackCapture.captureOwn() : nil)
                reports.withLock { $0.append(report) }
                onStall(report)
            }
        }
        finished.signal()
    }
}
