import Foundation
import LabHarness

/// Steps that say where they ran. A trial about callbacks and queues is about *where* a block
/// runs, so each step is an event of the trial's one log (`context.event`) whose `thread`
/// reads `queue · thread` (`chat.library · -qos.overcommit #4711`), and advances the trial's
/// progress, so the harness sees a scenario that stops taking steps as stalled. The readers
/// find a step by the start of its label (labels carry figures after a fixed start).
extension VariantContext {
    /// Records `label` at `instant` (monotonic, default now) in `place` (default: where the
    /// caller runs) and advances the progress.
    func step(_ label: String, at instant: Seconds? = nil, place: ExecutionPlace = .current) {
        event(label, at: instant, thread: "\(place.queue) · \(place.thread)")
        progress.advance()
    }

    /// The first step whose label starts with `start`.
    func firstStep(_ start: String) -> TimedEvent? { events.first { $0.label.hasPrefix(start) } }

    /// The queue the first step starting with `start` ran on.
    func queue(of start: String) -> String? { firstStep(start)?.thread?.components(separatedBy: " · ").first }

    /// 1 when the first step starting with `start` ran on `queue`, else 0 (also when absent):
    /// a metric.
    func ran(_ start: String, on queue: String) -> Double { self.queue(of: start) == queue ? 1 : 0 }

    /// `queue (thread)` of the first step starting with `start`, for evidence lines.
    func place(of start: String) -> String {
        guard let place = firstStep(start)?.thread else { return "nowhere (it did not happen)" }
        return place.replacingOccurrences(of: " · ", with: " (") + ")"
    }

    /// Seconds from the first step starting with `from` to the first starting with `to`.
    func interval(_ from: String, _ to: String) -> Seconds? {
        guard let a = firstStep(from), let b = firstStep(to) else { return nil }
        return b.t - a.t
    }

    /// True when a step starting with each of `starts` happened, the first of each strictly
    /// after the first of the one before: an order, which load cannot flip as it can a length.
    func stepsInOrder(_ starts: String...) -> Bool {
        let times = starts.compactMap { firstStep($0)?.t }
        return times.count == starts.count && zip(times, times.dropFirst()).allSatisfy { $0 < $1 }
    }

    /// How long the machine held up the same-moment control since the trial started (zero
    /// without `.stallWatch`): the allowance a delay limit adds so load cannot flip it.
    var stallSoFar: Seconds { machineDelay(from: startedAt, to: MonotonicClock.now()) }
}

extension Format {
    /// `12%`, `under 0.01%`, for evidence lines; `—` without a whole.
    static func share(_ part: Double, of whole: Double) -> String {
        guard whole > 0, part.isFinite else { return "—" }
        let ratio = part / whole
        return ratio < 0.0001 ? "under 0.01%" : decimal(100 * ratio, places: ratio < 0.01 ? 2 : 0) + "%"
    }

    /// "; a same-moment control was held up 120 ms" when it was held up at all (5 ms or more),
    /// else nothing: the allowance a verdict granted, said next to the figure it excused.
    static func stallNote(_ stall: Seconds) -> String {
        stall >= 0.005 ? "; a same-moment control was held up \(seconds(stall))" : ""
    }
}
