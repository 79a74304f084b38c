import Foundation
import LabHarness
import Synchronization

/// The article's symptom is the app freezing, which is the main thread. This variant gives the
/// main thread a 60 Hz heartbeat (a repeating timer on its run loop, as a display refresh
/// would be) and floods the global queue as `global-flood` does, in two phases:
///
/// 1. **The flood alone** (`spareWindow`): the main thread only turns its run loop. It is not a
///    pool thread, so its ticks should keep coming every 16.7 ms while every pool thread is held.
/// 2. **The main thread waits on the pool**: it puts a block on the flooded global queue and
///    blocks on a semaphore until the block has run, the common way an app freezes (a
///    "synchronous" helper around work sent to the global queue). No tick can come meanwhile.
///
/// Gaps between ticks are judged net of a same-moment control thread (`StallWatch`), so a
/// stall of the machine is not taken for the pool's doing.
enum MainThread {
    /// One frame of a 60 Hz display.
    static let frame: Seconds = 1.0 / 60

    static func run(_ context: VariantContext) -> VariantRecord {
        guard Thread.isMainThread else {
            return VariantRecord(outcome: .failed, evidence: "must run on the main thread (as a child trial)")
        }
        let p = PoolParameters(context.options)
        let control = StallWatch()
        let ticks = TickLog()
        let timer = Timer(fire: Date(), interval: frame, repeats: true) { _ in ticks.tick() }
        RunLoop.main.add(timer, forMode: .default)
        turnMainRunLoop(until: MonotonicClock.now() + 0.25)      // the heartbeat settles before the flood

        let ledger = BlockLedger(progress: context.progress)
        let hold = p.block
        for _ in 0..<p.tasks {
            DispatchQueue.global().async {
                ledger.begin()
                MonotonicClock.sleep(for: hold)   // holds a pool thread on purpose, as the seed's sleep(30)
                ledger.end()
            }
        }
        let floodAt = ledger.origin
        let spareEnd = floodAt + p.spareWindow
        turnMainRunLoop(until: spareEnd)
        let waitingAtSpareEnd = p.tasks - ledger.started

        // Phase 2: the main thread waits for a block it put on the flooded queue.
        let ran = DispatchSemaphore(value: 0)
        let waitStart = MonotonicClock.now()
        DispatchQueue.global().async { ran.signal() }
        let bound = p.watchBudget - p.spareWindow - 2
        let returned = ran.wait(timeout: .now() + .nanoseconds(Int(bound * 1e9))) == .success
        let waitEnd = MonotonicClock.now()
        turnMainRunLoop(until: waitEnd + 0.2)                  // the heartbeat resumes
        timer.invalidate()
        control.stop()

        let all = ticks.times
        let spare = gaps(all, from: floodAt, to: spareEnd, control: control)
        let frozen = gaps(all, from: waitStart, to: waitEnd + 0.2, control: control)
        var m = Metrics()
        m[PoolMetric.tasks] = Double(p.tasks)
        m[PoolMetric.blockS] = p.block
        m[PoolMetric.spareWindowS] = p.spareWindow
        m[PoolMetric.spareTicks] = Double(spare.count)
        m[PoolMetric.spareGapMaxMs] = spare.largest * 1000
        m[PoolMetric.spareGapMaxNetMs] = spare.largestNet * 1000
        m[PoolMetric.spareBlocksWaiting] = Double(waitingAtSpareEnd)
        m[PoolMetric.spareControlDelayS] = control.delay(from: floodAt, to: spareEnd)
        m[PoolMetric.mainWaitS] = waitEnd - waitStart
        m[PoolMetric.mainWaitReturned] = returned ? 1 : 0
        m[PoolMetric.freezeGapMaxMs] = frozen.largest * 1000
        m[PoolMetric.freezeGapMaxFrames] = frozen.largest / frame
        m[PoolMetric.blocksStarted] = Double(ledger.started)
        m[PoolMetric.wallS] = context.elapsed()
        m.merge(control.metrics)

        let outcome: Outcome
        if spare.largestNet > 3 * frame {
            outcome = .starved
        } else if frozen.largest >= 10 * frame {
            outcome = .frozen
        } else {
            outcome = .responsive
        }
        let evidence = "flood: \(spare.count) ticks in \(Format.seconds(p.spareWindow)), largest gap \(Format.seconds(spare.largest)) "
            + "with \(waitingAtSpareEnd) of \(p.tasks) blocks still waiting for a thread; main waited \(Format.seconds(waitEnd - waitStart)) "
            + "for its block\(returned ? "" : " (gave up)"), no tick for \(Format.seconds(frozen.largest))"
        return VariantRecord(outcome: outcome, metrics: m, evidence: evidence)
    }

    /// Turns the main run loop (which fires the heartbeat) until `end`.
    static func turnMainRunLoop(until end: Seconds) {
        while MonotonicClock.now() < end {
            _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: min(0.05, max(0.001, end - MonotonicClock.now()))))
        }
    }

    /// The ticks within `from...to` and the largest gap between consecutive ticks there, raw
    /// and net of what the control thread was held up over the same gap. The gap that spans
    /// `from` counts from the last tick before it; the last one ends at `to` (a window with no
    /// tick is one gap from that earlier tick to `to`).
    static func gaps(_ times: [Seconds], from: Seconds, to: Seconds, control: StallWatch) -> (count: Int, largest: Seconds, largestNet: Seconds) {
        let inside = times.filter { $0 >= from && $0 <= to }
        let before = times.last { $0 < from } ?? from
        let edges = [before] + inside + [to]
        var largest = 0.0, largestNet = 0.0
        for (a, b) in zip(edges, edges.dropFirst()) {
            largest = max(largest, b - a)
            largestNet = max(largestNet, b - a - control.delay(from: a, to: b))
        }
        return (inside.count, largest, largestNet)
    }
}

/// The heartbeat's tick times (monotonic), written on the main thread, read after.
final class TickLog: Sendable {
    private let times_ = Mutex<[Seconds]>([])
    func tick() { let now = MonotonicClock.now(); times_.withLock { $0.append(now) } }
    var times: [Seconds] { times_.withLock { $0 } }
}
