import Foundation
import Synchronization

/// One point of a thread-count timeline.
public struct ThreadSample: Sendable, Equatable, Codable {
    /// Seconds since the sampler started.
    public var t: Seconds
    /// Threads of the process at that moment, not counting the sampler's own thread.
    public var count: Int

    public init(t: Seconds, count: Int) {
        self.t = t
        self.count = count
    }
}

/// A recorded thread-count timeline with its peak and final count.
public struct ThreadTimeline: Sendable, Equatable, Codable {
    public var interval: Seconds
    /// Monotonic instant of the first sample; `t` of every sample is relative to it.
    public var startedAt: Seconds
    public var samples: [ThreadSample]
    /// CPU time the sampler's own thread used while sampling (`nil` where the platform does
    /// not keep per-thread CPU time): the measurement's own cost.
    public var samplerCPU: Seconds?

    public init(interval: Seconds, startedAt: Seconds, samples: [ThreadSample], samplerCPU: Seconds?) {
        self.interval = interval
        self.startedAt = startedAt
        self.samples = samples
        self.samplerCPU = samplerCPU
    }

    public var peak: Int { samples.map(\.count).max() ?? 0 }
    public var first: Int { samples.first?.count ?? 0 }
    public var final: Int { samples.last?.count ?? 0 }
    public var duration: Seconds { samples.last?.t ?? 0 }

    /// The first time the count reached at least `count`, or `nil` if it never did.
    public func firstTime(reaching count: Int) -> Seconds? {
        samples.first { $0.count >= count }?.t
    }

    /// The count at time `t` (the last sample at or before it).
    public func count(at t: Seconds) -> Int? {
        samples.last { $0.t <= t }?.count
    }

    /// Least-squares slope of count over time, in threads per second, for samples in `range`
    /// (everything by default). `nil` with fewer than two samples.
    public func growthRate(in range: ClosedRange<Seconds>? = nil) -> Double? {
        let points = samples.filter { range?.contains($0.t) ?? true }
        guard points.count >= 2 else { return nil }
        let n = Double(points.count)
        let meanT = points.map(\.t).reduce(0, +) / n
        let meanC = points.map { Double($0.count) }.reduce(0, +) / n
        var num = 0.0, den = 0.0
        for p in points {
            num += (p.t - meanT) * (Double(p.count) - meanC)
            den += (p.t - meanT) * (p.t - meanT)
        }
        return den > 0 ? num / den : nil
    }

    /// The timeline thinned to at most `maxPoints` samples (keeping the first, the last and
    /// every local peak's bucket maximum), for reports and charts.
    public func thinned(to maxPoints: Int) -> [ThreadSample] {
        guard samples.count > maxPoints, maxPoints >= 2 else { return samples }
        let bucket = Double(samples.count) / Double(maxPoints - 1)
        var result: [ThreadSample] = []
        var index = 0.0
        while Int(index) < samples.count - 1 {
            let lo = Int(index), hi = Swift.min(samples.count - 1, Int(index + bucket))
            let slice = samples[lo..<Swift.max(hi, lo + 1)]
            result.append(slice.max { $0.count < $1.count } ?? samples[lo])
            index += bucket
        }
        result.append(samples[samples.count - 1])
        return result
    }

    /// `[[t, count], ...]` for JSON series.
    public func series(maxPoints: Int = 400) -> [[Double]] {
        thinned(to: maxPoints).map { [$0.t, Double($0.count)] }
    }
}

/// Records the process's thread count at a fixed interval on a dedicated thread.
///
/// The sampler runs on its own `Thread` (not a dispatch queue, whose pool is often what is being
/// measured), sleeps to absolute deadlines so the interval does not drift, and reads one small
/// procfs file per sample on Linux. Its own thread is subtracted from every count, so a timeline
/// shows the code under test only. `samplerCPU` in the result is what the sampling cost: on the
/// lab's 2-core VM most of it is the wake-up itself (about 30-45 µs of CPU each, measured with a
/// bare C loop), which no sampler that wakes 100 times a second can avoid.
public final class ThreadSampler: Sendable {
    public let interval: Seconds
    private let state = Mutex(State())
    private let stopping = Atomic<Bool>(false)
    private let latestCount = Atomic<Int>(0)
    private let peakCount = Atomic<Int>(0)
    private let finished = DispatchSemaphore(value: 0)

    private struct State {
        var started = false
        var stopped = false
        var startedAt: Seconds = 0
        var samples: [ThreadSample] = []
        var samplerCPU: Seconds?
    }

    /// Samples kept on the sampler thread between publications: the lock is taken once per
    /// batch, not once per sample.
    private static let batch = 64

    /// - Parameter interval: seconds between samples, at least 0.0005.
    public init(interval: Seconds = 0.01) {
        self.interval = Swift.max(interval, 0.0005)
    }

    /// Starts sampling; the first sample is taken before this returns, so `peakSoFar` and
    /// `latest` are meaningful at once. Calling it twice does nothing. `false` when the
    /// sampler's thread did not start (see `NamedThread.startAndAwait`): the timeline stays
    /// empty and `stop()` waits for nothing.
    @discardableResult
    public func start() -> Bool {
        let first = state.withLock { s -> Bool in
            if s.started { return false }
            s.started = true
            return true
        }
        guard first else { return true }
        let started = NamedThread.startInstrumentAndAwait("lab.sampler", stackSize: 256 * 1024) { [self] start in
            run(start)
        }
        if !started { state.withLock { $0.stopped = true } }
        return started
    }

    /// Stops sampling and returns the timeline. Waits (at most one interval plus a second) for
    /// the sampler thread to take its last sample and leave its loop; the kernel drops the
    /// thread from the process's list a moment later.
    @discardableResult
    public func stop() -> ThreadTimeline {
        let wasRunning = state.withLock { s -> Bool in
            defer { s.stopped = true }
            return s.started && !s.stopped
        }
        if wasRunning {
            stopping.store(true, ordering: .releasing)
            _ = finished.wait(timeout: .now() + .milliseconds(Int((interval + 1) * 1000)))
        }
        return timeline
    }

    /// The timeline published so far: while the sampler runs it lags by up to 64 samples.
    public var timeline: ThreadTimeline {
        state.withLock { s in
            ThreadTimeline(interval: interval, startedAt: s.startedAt, samples: s.samples, samplerCPU: s.samplerCPU)
        }
    }

    /// The most recent count.
    public var latest: Int { latestCount.load(ordering: .relaxed) }
    /// The highest count so far.
    public var peakSoFar: Int { peakCount.load(ordering: .relaxed) }

    /// Runs `body` while sampling and returns its result with the timeline.
    public static func record<T>(
        interval: Seconds = 0.01, _ body: () throws -> T
    ) rethrows -> (result: T, timeline: ThreadTimeline) {
        let sampler = ThreadSampler(interval: interval)
        sampler.start()
        defer { sampler.stop() }
        let result = try body()
        return (result, sampler.stop())
    }

    /// The CPU share (a fraction of one core) of a thread that only wakes every `interval`
    /// seconds for `duration` seconds: the floor under any sampler at that interval on this
    /// machine (on a VM the wake-up itself is most of a sample's cost). NaN where the platform
    /// keeps no per-thread CPU time.
    public static func wakeUpFloor(interval: Seconds, for duration: Seconds) -> Double {
        let result = Mutex<Double>(.nan)
        let done = DispatchSemaphore(value: 0)
        NamedThread.startInstrument("lab.wake-only") {
            let cpu = CPUTime.currentThread() ?? .nan
            let start = MonotonicClock.now()
            var next = start
            while MonotonicClock.now() - start < duration {
                next += interval
                MonotonicClock.sleep(until: next)
            }
            let share = ((CPUTime.currentThread() ?? .nan) - cpu) / (MonotonicClock.now() - start)
            result.withLock { $0 = share }
            done.signal()
        }
        done.wait()
        return result.withLock { $0 }
    }

    private func run(_ starter: NamedThread.Start) {
        let counter = FastThreadCounter()
        defer { counter.close() }
        let cpuAtStart = CPUTime.currentThread()
        let start = MonotonicClock.now()
        state.withLock { $0.startedAt = start }
        var pending: [ThreadSample] = []
        pending.reserveCapacity(ThreadSampler.batch)
        var next = start
        var peak = 0
        var signalled = false
        while true {
            // Stop is checked before sampling so the loop never sleeps past a stop request
            // by more than one interval.
            let stopNow = stopping.load(ordering: .acquiring)
            let raw = counter.count()
            let now = MonotonicClock.now()
            let count = Swift.max((raw ?? 0) - 1, 0)
            pending.append(ThreadSample(t: now - start, count: count))
            latestCount.store(count, ordering: .relaxed)
            if count > peak { peak = count; peakCount.store(count, ordering: .relaxed) }
            if !signalled {
                signalled = true
                if !starter.signalReady() { return }  // its starter went on without it
            }
            if pending.count >= ThreadSampler.batch || stopNow {
                state.withLock { $0.samples.append(contentsOf: pending) }
                pending.removeAll(keepingCapacity: true)
            }
            if stopNow { break }
            next += interval
            if next < now { next = now }  // fell behind (a loaded machine): skip, do not burst
            MonotonicClock.sleep(until: next)
        }
        if let begin = cpuAtStart, let end = CPUTime.currentThread() {
            state.withLock { $0.samplerCPU = end - begin }
        }
        finished.signal()
    }
}
