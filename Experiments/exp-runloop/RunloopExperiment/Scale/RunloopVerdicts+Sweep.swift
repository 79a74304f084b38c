import Foundation
import LabHarness

/// The sweep's findings: how lateness grows with the number of requests, judged as ratios
/// between points of the same sweep, on lateness beyond a same-moment control (`StallWatch`).
extension RunloopVerdicts {
    /// Lateness below this is scheduling noise: a ratio's smaller side is raised to it, so a
    /// 0.05 ms p99 does not turn a 1 ms one into "20 times worse".
    static let sweepNoiseFloorMs = 0.5

    /// How many times later one p99 must be than another to count as "grows" or "stays on
    /// time against it". Measured here: shared-thread grows about 10× per 10× requests from 100
    /// up, and is 50-100× deadline-heap's at 10,000; a machine stall that survives the control
    /// correction does not make up a factor of 5.
    static let sweepRatio = 5.0

    /// The sweep must span this factor of request counts for a growth to be told from noise.
    static let sweepMinSpan = 100.0

    /// p99 lateness beyond the control, in ms, raised to the noise floor (`nil` if unmeasured).
    static func excessP99(_ point: SweepPoint?) -> Double? {
        guard let point, let raw = point[RunloopMetric.latenessExcessP99Ms] ?? point[RunloopMetric.latenessP99Ms] else { return nil }
        return max(raw, sweepNoiseFloorMs)
    }

    /// "10: 0.31 ms, 100: 2.1 ms, ..." for one design.
    static func curve(_ points: [SweepPoint]) -> String {
        points.map { "\(Format.count(Double($0.tasks))): \($0[RunloopMetric.latenessP99Ms].map(Format.milliseconds) ?? "—")" }.joined(separator: ", ")
    }

    static func perRequestTimersDegrade(_ inputs: FindingInputs) -> Verdict {
        let points = RunloopSweep.points(from: inputs[RunloopVariant.sweep])
        let shared = points.filter { $0.variant == TimeoutDesignName.sharedThread.rawValue }
        guard let small = shared.first, let large = shared.last, Double(large.tasks) >= sweepMinSpan * Double(small.tasks) else {
            return Verdict(false, "the sweep must span \(Format.count(sweepMinSpan))× in requests with shared-thread at both ends (such as --sweep 10,1000); it ran shared-thread at \(shared.map { Format.count(Double($0.tasks)) }.joined(separator: ", "))")
        }
        guard let smallP99 = excessP99(small), let largeP99 = excessP99(large) else {
            return Verdict(false, "shared-thread's lateness was not measured at both ends: \(curve(shared))")
        }
        let decades = log10(Double(large.tasks) / Double(small.tasks))
        let growth = largeP99 / smallP99
        let perDecade = pow(growth, 1 / decades)
        let heap = points.first { $0.variant == TimeoutDesignName.deadlineHeap.rawValue && $0.tasks == large.tasks }
        var text = "one run-loop timer per request (shared-thread), p99 late at \(curve(shared)): beyond a same-moment control \(Format.decimal(growth, places: 1))× from \(Format.count(Double(small.tasks))) to \(Format.count(Double(large.tasks))) requests, \(Format.decimal(perDecade, places: 1))× per 10× requests"
        // For comparison only (deadline-heap-scales judges it): the same kind of thread with
        // one timer for all the deadlines.
        if let heap, let heapP99 = excessP99(heap) {
            text += "; deadline-heap on the same kind of thread: \(heap[RunloopMetric.latenessP99Ms].map(Format.milliseconds) ?? "—") at \(Format.count(Double(large.tasks))) (\(Format.decimal(largeP99 / heapP99, places: 0))× less, beyond the control)"
        }
        text += " (the growth needs ≥ \(Format.number(sweepRatio))×, lateness under \(Format.milliseconds(sweepNoiseFloorMs)) counted as \(Format.milliseconds(sweepNoiseFloorMs)))"
        let done = large[RunloopMetric.completed] == large[RunloopMetric.total]
        return Verdict(done && growth >= sweepRatio, text)
    }

    static func deadlineHeapScales(_ inputs: FindingInputs) -> Verdict {
        let points = RunloopSweep.points(from: inputs[RunloopVariant.sweep])
        guard let largest = points.map(\.tasks).max(),
              let heap = points.first(where: { $0.variant == TimeoutDesignName.deadlineHeap.rawValue && $0.tasks == largest }),
              let shared = points.first(where: { $0.variant == TimeoutDesignName.sharedThread.rawValue && $0.tasks == largest }),
              let heapP99 = excessP99(heap), let sharedP99 = excessP99(shared) else {
            return Verdict(false, "the sweep has no deadline-heap and shared-thread lateness at its largest count")
        }
        let count = Format.count(Double(largest))
        let done = heap[RunloopMetric.completed] == heap[RunloopMetric.total] && (heap[RunloopMetric.early] ?? 0) == 0
        let threads = heap[RunloopMetric.threadsAdded] ?? .infinity
        let wall = heap[RunloopMetric.wallPerTimeout].map { Format.decimal($0, places: 2) + " × timeout" } ?? "—"
        let ratio = sharedP99 / heapP99
        let text = "at \(count) requests deadline-heap woke \(Format.count(heap[RunloopMetric.completed] ?? 0)) of \(Format.count(heap[RunloopMetric.total] ?? 0)) p99 \(heap[RunloopMetric.latenessP99Ms].map(Format.milliseconds) ?? "—") late (max \(heap[RunloopMetric.latenessMaxMs].map(Format.milliseconds) ?? "—")), all done in \(wall), adding \(Format.count(threads)) thread(s); shared-thread's p99 \(shared[RunloopMetric.latenessP99Ms].map(Format.milliseconds) ?? "—"): \(Format.decimal(ratio, places: 0))× deadline-heap's beyond a same-moment control (needs ≥ \(Format.number(sweepRatio))×; deadline-heap's own within \(Format.milliseconds(onTimeLimitMs)) of the control)"
        return Verdict(done && ratio >= sweepRatio && onTime(excessP99: heapP99) && threads <= 2, text)
    }
}
