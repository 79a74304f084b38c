import Foundation
import LabHarness

/// The sweep's findings: how lateness grows with the number of requests, judged as ratios
/// between points of the same sweep, on lateness beyond a same-moment control. The mechanism
/// each needs: at the points it reads, every caller started and raced its timeout, and the
/// design's timers were counted (a timer per request for shared-thread, one re-set timer for
/// deadline-heap); without that, the figures are not about the design.
enum SweepVerdicts {
    /// How many times later one p99 must be than another to count as "grows" or "stays on
    /// time against it": shared-thread grows about 10× per 10× requests from 100 up, and is
    /// 50-100× deadline-heap's at 10,000; a stall that survives the control does not make 5×.
    static let ratio = Threshold("ratio", 5, "×")
    /// The span of request counts a growth needs to be told from noise.
    static let span = Threshold("span", 100, "×")
    /// Lateness below this is scheduling noise: a ratio's smaller side is raised to it, so a
    /// 0.05 ms p99 does not turn a 1 ms one into "20 times worse".
    static let noiseFloor = Threshold("noise floor", 0.5, "ms")
    /// The threads deadline-heap may add (its p99 beyond the control at the largest count is
    /// judged by the request placements' `RunloopVerdicts.onTimeThreshold`).
    static let threads = Threshold("threads added", 2)

    /// p99 lateness beyond the control, in ms, raised to the noise floor (`nil` if unmeasured).
    static func excessP99(_ point: SweepPoint?) -> Double? {
        guard let raw = point?[RunloopMetric.latenessExcessP99Ms] ?? point?[RunloopMetric.latenessP99Ms] else {
            return nil
        }
        return max(raw, noiseFloor.value)
    }

    /// "10: 0.31 ms, 100: 2.1 ms, ..." for one design.
    static func curve(_ points: [SweepPoint]) -> String {
        points.map {
            "\(Format.count(Double($0.size))): \($0[RunloopMetric.latenessP99Ms].map(Format.milliseconds) ?? "—")"
        }.joined(separator: ", ")
    }

    /// The mechanism at a point: every caller started before its deadline and raced it to the
    /// end, and the design's timers counted.
    static func raced(
        _ point: SweepPoint, _ design: TimeoutDesignName, timers: (Double, Double) -> Bool, _ what: String
    ) -> Evidence {
        let total = point[RunloopMetric.total] ?? 0, done = point[RunloopMetric.completed] ?? 0,
            inTime = point[RunloopMetric.callersStarted] ?? 0, armed = point[RunloopMetric.timersArmed] ?? .nan
        let n = Format.count, counted = armed.isNaN ? "timers not counted" : "\(n(armed)) \(what)"
        return .when(
            total > 0 && inTime == total && done == total && timers(armed, total),
            "\(design.rawValue) at \(n(Double(point.size))): \(n(inTime)) of \(n(total)) callers started before "
                + "their deadline, \(n(done)) raced to the end, \(counted)")
    }

    static func perRequestTimersDegrade(_ inputs: FindingInputs) -> Verdict {
        let shared = inputs.points(of: TimeoutDesignName.sharedThread)
        guard let small = shared.first, let large = shared.last, Double(large.size) >= span.value * Double(small.size)
        else {
            return .notJudged(
                "the sweep must span \(Format.count(span.value))× in requests with shared-thread at both ends (such as --sweep 10,1000); it ran shared-thread at \(shared.map { Format.count(Double($0.size)) }.joined(separator: ", "))"
            )
        }
        guard let smallP99 = excessP99(small), let largeP99 = excessP99(large) else {
            return .notJudged("shared-thread's lateness was not measured at both ends: \(curve(shared))")
        }
        let growth = largeP99 / smallP99
        let perDecade = pow(growth, 1 / log10(Double(large.size) / Double(small.size)))
        let n = Format.count, from = n(Double(small.size)), to = n(Double(large.size))
        let grew = Format.decimal(growth, places: 1), perTen = Format.decimal(perDecade, places: 1)
        var text =
            "one run-loop timer per request (shared-thread), p99 late at \(curve(shared)): beyond a same-moment control \(grew)× from \(from) to \(to) requests, \(perTen)× per 10× requests"
        // For comparison only (deadline-heap-scales judges it).
        if let heap = inputs.points(of: TimeoutDesignName.deadlineHeap).first(where: { $0.size == large.size }),
            let heapP99 = excessP99(heap)
        {
            let heapLate = heap[RunloopMetric.latenessP99Ms].map(Format.milliseconds) ?? "—"
            let less = Format.decimal(largeP99 / heapP99, places: 0)
            text +=
                "; deadline-heap on the same kind of thread: \(heapLate) at \(to) (\(less)× less, beyond the control)"
        }
        return Verdict(
            symptom: growth >= ratio.value,
            mechanism: .all(
                [small, large].map {
                    raced($0, .sharedThread, timers: { $0 >= $1 }, "run-loop timers added, one per request")
                }), text)
    }

    static func deadlineHeapScales(_ inputs: FindingInputs) -> Verdict {
        let heaps = inputs.points(of: TimeoutDesignName.deadlineHeap),
            shareds = inputs.points(of: TimeoutDesignName.sharedThread)
        guard let heap = heaps.last, let shared = shareds.last(where: { $0.size == heap.size }),
            let heapP99 = excessP99(heap), let sharedP99 = excessP99(shared)
        else {
            return .notJudged("the sweep has no deadline-heap and shared-thread lateness at its largest count")
        }
        // "`ratio` × less late than shared-thread" can be told only where shared-thread is late
        // by `ratio` × the noise floor or more: below that, every design reads as the floor.
        guard sharedP99 >= ratio.value * noiseFloor.value else {
            let seen = (shared[RunloopMetric.latenessExcessP99Ms] ?? shared[RunloopMetric.latenessP99Ms] ?? 0)
            return .notJudged(
                "at \(Format.count(Double(shared.size))) requests, the sweep's largest count, shared-thread's p99 beyond a "
                    + "same-moment control is \(Format.milliseconds(seen)): within \(Format.number(ratio.value))× of the "
                    + "\(Format.milliseconds(noiseFloor.value)) noise floor, so no design can be told \(Format.number(ratio.value))× "
                    + "less late; sweep to a count where it is late, such as --sweep 10,10000")
        }
        let added = heap[RunloopMetric.threadsAdded] ?? .infinity, early = heap[RunloopMetric.early] ?? 0
        let wall = heap[RunloopMetric.wallPerTimeout].map { Format.decimal($0, places: 2) + " × timeout" } ?? "—"
        let n = Format.count, ms = { (point: SweepPoint, key: String) in point[key].map(Format.milliseconds) ?? "—" }
        let size = n(Double(heap.size)), woke = n(heap[RunloopMetric.completed] ?? 0),
            of = n(heap[RunloopMetric.total] ?? 0)
        let times = Format.decimal(sharedP99 / heapP99, places: 0)
        let p99 = ms(heap, RunloopMetric.latenessP99Ms), late = ms(heap, RunloopMetric.latenessMaxMs)
        let heapText =
            "at \(size) requests deadline-heap woke \(woke) of \(of) p99 \(p99) late (max \(late)), \(n(early)) early, all done in \(wall), adding \(n(added)) thread(s)"
        let text =
            heapText
            + "; shared-thread's p99 \(ms(shared, RunloopMetric.latenessP99Ms)): \(times)× deadline-heap's beyond a same-moment control"
        return Verdict(
            symptom: sharedP99 / heapP99 >= ratio.value && heapP99 <= RunloopVerdicts.onTimeThreshold.value
                && added <= threads.value
                && early == 0,
            mechanism: .all([
                raced(heap, .deadlineHeap, timers: { $0 < $1 }, "settings of its one timer"),
                raced(shared, .sharedThread, timers: { $0 >= $1 }, "run-loop timers added, one per request"),
            ]), text)
    }
}
