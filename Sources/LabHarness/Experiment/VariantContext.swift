import Foundation
import Synchronization

/// What a variant's body gets: its typed parameters, a progress counter the harness watches,
/// one event log, and the instruments its declaration asked for (a same-moment control, a
/// thread timeline), started before the body and merged into its record after it.
public final class VariantContext: Sendable {
    public let variant: String
    public let options: ParsedOptions
    /// Advance it as work completes: the parent shows it live, and a child that stops
    /// advancing it for its stall window is a deadlock.
    public let progress: ProgressCounter
    /// Monotonic start of the trial.
    public let startedAt: Seconds
    /// Whether this trial runs in a child process (so it may block, leak or trap on purpose).
    let inChild: Bool
    /// The same-moment control, when the variant declared `.stallWatch` (or
    /// `.realtimeStallWatch`).
    public let stallWatch: StallWatch?
    /// The process's thread count over the trial, when the variant declared `.threadTimeline`.
    public let threads: ThreadSampler?
    private let parsed: any ExperimentParameters
    /// Events as they happened: each keeps its monotonic instant unrounded, so two events (or an
    /// event and an instant taken elsewhere on the same clock) are ordered as they happened. The
    /// report's `TimedEvent`s are rounded for reading; nothing is judged from those.
    private let log = Mutex<[(instant: Seconds, label: String, thread: String?)]>([])
    /// The stacks the body took (`captureStacks()`), attached to its record by `finish`.
    private let stacks = Mutex<StackSnapshot?>(nil)

    public init(
        variant: String, options: ParsedOptions, inChild: Bool, progress: ProgressCounter = ProgressCounter(),
        parameters: (any ExperimentParameters)? = nil,
        instruments: Instruments = []
    ) {
        self.variant = variant
        self.options = options
        self.inChild = inChild
        self.progress = progress
        parsed = parameters ?? NoParameters(options)
        if instruments.contains(.threadTimeline) {
            let sampler = ThreadSampler(interval: 0.01)
            sampler.start()
            threads = sampler
        } else {
            threads = nil
        }
        if instruments.contains(.realtimeStallWatch) {
            stallWatch = StallWatch(realtime: true)
        } else if instruments.contains(.stallWatch) {
            stallWatch = StallWatch()
        } else {
            stallWatch = nil
        }
        startedAt = MonotonicClock.now()
    }

    /// A context whose same-moment control is `watch` (a recorded one: `StallWatch(recorded:)`),
    /// for checking what a body does with a stall without stalling a machine.
    init(variant: String, options: ParsedOptions, recordedStallWatch watch: StallWatch) {
        (self.variant, self.options, inChild, progress) = (variant, options, false, ProgressCounter())
        (parsed, threads, stallWatch, startedAt) = (NoParameters(options), nil, watch, MonotonicClock.now())
    }

    /// The experiment's typed parameters, parsed once from the options.
    public func parameters<P: ExperimentParameters>(_ type: P.Type = P.self) -> P {
        guard let typed = parsed as? P else {
            preconditionFailure(
                "variant reads \(P.self), but the experiment's parameters are \(Swift.type(of: parsed))")
        }
        return typed
    }

    /// Records an event at `at` (monotonic; default now), on `thread` when that matters, and
    /// returns its instant. Safe from any thread; the events reach the report in time order, as
    /// seconds since the trial started.
    @discardableResult
    public func event(_ label: String, at: Seconds? = nil, thread: String? = nil) -> Seconds {
        let instant = at ?? MonotonicClock.now()
        log.withLock { $0.append((instant, label, thread)) }
        return instant
    }

    /// The events so far, in time order, with their times unrounded (the report rounds its copy).
    public var events: [TimedEvent] {
        log.withLock { $0 }.sorted { $0.instant < $1.instant }.map {
            TimedEvent(exact: $0.instant - startedAt, label: $0.label, thread: $0.thread)
        }
    }

    /// The monotonic instant of the first event with `label`, exactly as it was taken: compare
    /// it with other instants of `MonotonicClock` (a `ReleaseTracker`'s release time, say).
    public func instant(of label: String) -> Seconds? {
        log.withLock { $0.filter { $0.label == label }.map(\.instant).min() }
    }

    /// The first event with `label`, as seconds since the trial started (unrounded).
    public func time(of label: String) -> Seconds? { instant(of: label).map(since) }

    /// How long the machine held up the same-moment control within `from...to` (monotonic
    /// seconds): the part of a measured delay that was the machine's, not the mechanism's.
    /// Zero without a `.stallWatch` instrument.
    public func machineDelay(from: Seconds, to: Seconds) -> Seconds {
        stallWatch?.delay(from: from, to: to) ?? 0
    }

    /// Every thread's stack in this process now, taken while a stuck trial still waits: the
    /// body may read it (who waits where), and `finish` attaches it to the body's record (its
    /// note, why stacks could not be had, in the evidence).
    public func captureStacks() -> StackSnapshot {
        let snapshot = StackCapture.captureOwn()
        stacks.withLock { $0 = snapshot }
        return snapshot
    }

    /// Stops the instruments and puts what they measured into `record`: the stacks the body
    /// took, the control's `control.stall_max_ms`, the `threads` series, and the event log
    /// (after any events the body put there itself).
    func finish(_ record: VariantRecord) -> VariantRecord {
        var record = StackEvidence.attach(stacks.withLock { $0 }, to: record)
        if let stallWatch {
            stallWatch.stop()
            if record.metrics[Metrics.controlStallMax] == nil { record.metrics.merge(stallWatch.metrics) }
        }
        if let threads {
            let timeline = threads.stop()
            if record.series["threads"] == nil { record.series["threads"] = timeline.series() }
        }
        let logged = events.map(\.rounded)
        if !logged.isEmpty { record.events = (record.events + logged).sorted { $0.t < $1.t } }
        return record
    }

    /// Measure, then trap: hands `record` (what the trial measured so far, with the outcome it
    /// expects) to the parent before a step that may end the process. If the process then dies
    /// without a result, the parent's record is this one with the outcome and evidence of the
    /// process's end put in front (`crashed`, the runtime's message). A later checkpoint
    /// replaces an earlier one; in-process trials, which must not trap, ignore it. The event
    /// log so far is included.
    public func checkpoint(_ record: VariantRecord) {
        var record = record
        let logged = events.map(\.rounded)
        if !logged.isEmpty { record.events = (record.events + logged).sorted { $0.t < $1.t } }
        if let stallWatch, record.metrics[Metrics.controlStallMax] == nil { record.metrics.merge(stallWatch.metrics) }
        guard inChild, let data = try? JSONEncoder().encode(record) else { return }
        ChildProtocol.sendCheckpoint(String(decoding: data, as: UTF8.self))
    }

    /// Seconds since the trial started.
    public func elapsed() -> Seconds { MonotonicClock.now() - startedAt }

    /// Seconds since the trial started at monotonic instant `instant`.
    public func since(_ instant: Seconds) -> Seconds { instant - startedAt }
}

extension VariantContext {
    /// The `failed` record of a body that needs the main thread, where it may not run: off the
    /// main thread, or, for one that `blocksItForGood`, anywhere but a child trial's main thread;
    /// `nil` where it may run. For the experiments whose trials wait on the main thread.
    public func mainThreadRefusal(blocksItForGood: Bool = false) -> VariantRecord? {
        if blocksItForGood, !(inChild && Thread.isMainThread) {
            return VariantRecord(
                outcome: .failed,
                evidence: "blocks the main thread for good: runs only as a child trial, on its main thread")
        }
        return Thread.isMainThread
            ? nil : VariantRecord(outcome: .failed, evidence: "must run on the main thread (as a child trial)")
    }
}
