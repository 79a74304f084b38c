import Foundation
import LabHarness
import Synchronization

/// The article's symptom, the app freezing, is the main thread's. It gets a 60 Hz heartbeat (a
/// repeating timer on its run loop) while the global queue is flooded: 1. **the flood alone**
/// (`spareWindow`): the main thread is not a pool thread, so its ticks keep coming; 2. **the
/// main thread waits on the pool** for a block it put on the flooded queue, and no tick can come.
enum MainThread {
    /// One frame of a 60 Hz display, and the heartbeat's event.
    static let frame: Seconds = 1.0 / 60, tickLabel = "tick"

    static func run(_ context: VariantContext) -> VariantRecord {
        if let refused = context.mainThreadRefusal() { return refused }
        let p = context.parameters(PoolParameters.self)
        let waits = MainWaits()
        let timer = Timer(fire: Date(), interval: frame, repeats: true) { _ in
            waits.sample(at: context.event(tickLabel))
        }
        RunLoop.main.add(timer, forMode: .default)
        MainQueueFriendlyWait.pass(0.25)  // the heartbeat settles before the flood

        let blocks = Blocks(context), hold = p.block
        // Each block holds a pool thread on purpose, as the article's sleep(30).
        for _ in 0..<p.tasks { DispatchQueue.global().async { blocks.hold(hold) } }
        let spareEnd = blocks.origin + p.spareWindow
        MainQueueFriendlyWait.pass(until: spareEnd)
        waits.sample()

        // Phase 2: the main thread waits for a block it put on the flooded queue, behind those still waiting.
        waits.sample()
        let ran = DispatchSemaphore(value: 0), ahead = p.tasks - blocks.started, waitStart = MonotonicClock.now()
        DispatchQueue.global().async { ran.signal() }
        let returned = ran.wait(timeout: .now() + .nanoseconds(Int((p.duration + 2 * p.block + 5) * 1e9))) == .success
        let waitEnd = MonotonicClock.now()
        waits.sample(at: waitEnd)
        MainQueueFriendlyWait.pass(until: waitEnd + 0.2)  // the heartbeat resumes
        waits.sample()
        timer.invalidate()

        let ticks = context.events.filter { $0.label == tickLabel }.map { context.startedAt + $0.t }
        let spare = gaps(ticks, from: blocks.origin, to: spareEnd, context, waits)
        let frozen = gaps(ticks, from: waitStart, to: waitEnd + 0.2, context, waits)
        let waited = waitEnd - waitStart,
            waitedNet = max(0, waited - context.machineDelay(from: waitStart, to: waitEnd))
        let m: Metrics = [
            PoolMetric.tasks: Double(p.tasks), PoolMetric.blockS: p.block, PoolMetric.spareWindowS: p.spareWindow,
            PoolMetric.spareTicks: Double(spare.count), PoolMetric.spareGapMaxMs: spare.largest * 1000,
            PoolMetric.spareGapMaxNetMs: spare.largestNet * 1000, PoolMetric.spareBlocksWaiting: Double(ahead),
            PoolMetric.mainWaitS: waited, PoolMetric.mainWaitReturned: returned ? 1 : 0,
            PoolMetric.mainWaitBlocksAhead: Double(ahead), PoolMetric.freezeGapMaxMs: frozen.largest * 1000,
            PoolMetric.freezeGapMaxFrames: frozen.largest / frame, PoolMetric.blocksStarted: Double(blocks.started),
            PoolMetric.freezeGapMaxNetMs: frozen.largestNet * 1000, PoolMetric.mainWaitNetS: waitedNet,
            PoolMetric.spareControlDelayS: context.machineDelay(from: blocks.origin, to: spareEnd),
            PoolMetric.spareMainRunQueueWaitS: waits.waited(from: blocks.origin, to: spareEnd),
            PoolMetric.wallS: context.elapsed(),
        ]

        let outcome = freezeOutcome(block: p.block, spareNet: spare.largestNet, frozenNet: frozen.largestNet)
        let gaveUp = returned ? "" : " (gave up: a lower bound)"
        let frozenFrames = Format.count((frozen.largest / frame).rounded(.down))
        let freeze = "\(PoolVerdicts.freezeFloor) and \(PoolVerdicts.freezeFactor)"
        let evidence =
            "flood: \(spare.count) ticks in \(seconds: p.spareWindow), largest gap \(seconds: spare.largest) "
            + "with \(ahead) of \(p.tasks) blocks still waiting for a thread; main waited \(seconds: waited) "
            + "for its block\(gaveUp), no tick for \(seconds: frozen.largest) "
            + "(\(frozenFrames) frames; a freeze is \(freeze))"
        let mechanism = waitMechanism(ahead: ahead, waited: waited, waitedNet: waitedNet, block: p.block)
        return VariantRecord(outcome: outcome, metrics: m, evidence: evidence, mechanism: mechanism)
    }

    /// The outcome from the largest tick gaps, each net of the machine: `starved` when the flood
    /// alone reached the main thread; `frozen` when the wait's gap passes both freeze thresholds
    /// (half a block and `freezeFactor` frames); else `responsive`. Half a block, not a fixed
    /// time: the block waits for the next held thread to come free (492 ms for 500 ms blocks,
    /// once). Frames, not a multiple of the gap before: that gap may be up to `sparedGap`, and
    /// 10 × 3 frames is 500 ms, a whole `--quick` block, more than a wait for the next free
    /// thread can show (a main thread blocked 340 ms behind waiting blocks came out responsive).
    /// Net, so that a stall of the machine during a short wait is not a freeze.
    static func freezeOutcome(block: Seconds, spareNet: Seconds, frozenNet: Seconds) -> Outcome {
        if spareNet > PoolVerdicts.sparedGap.value * frame { return .starved }
        return frozenNet >= PoolVerdicts.freezeFloor.value * block
            && frozenNet >= PoolVerdicts.freezeFactor.value * frame ? .frozen : .responsive
    }

    /// What was seen of the freeze's cause: the main thread blocked in its wait for as long as a
    /// freeze lasts at least (the freeze floor), net of what a same-moment control lost to the
    /// machine, while its block was queued behind blocks still waiting for a pool thread. A
    /// short wait that a stall of the machine stretched is not the pool's doing.
    static func waitMechanism(ahead: Int, waited: Seconds, waitedNet: Seconds, block: Seconds) -> Evidence {
        let floor = PoolVerdicts.freezeFloor.value * block
        guard ahead > 0 else {
            return .notSeen("the main thread's block was queued behind no waiting block: the pool had a thread for it")
        }
        return .when(
            waitedNet >= floor,
            "the main thread was seen blocked \(seconds: waited) (\(seconds: waitedNet) net of the machine) in its "
                + "semaphore wait, its block queued behind \(ahead) blocks still waiting for a pool thread",
            otherwise: "the main thread waited \(seconds: waitedNet) net of the machine (\(seconds: waited) in all): "
                + "under the freeze floor, \(seconds: floor)")
    }

    /// The ticks within `from...to` and their largest gap, raw and net of the machine's part of
    /// it: the larger of what the same-moment control lost and what the main thread itself spent
    /// runnable, waiting for a CPU (a tick cannot come while the thread that fires it waits for
    /// one; on a loaded machine the two threads are not held up alike). The first gap counts
    /// from the last tick before `from`, the last ends at `to`.
    static func gaps(
        _ times: [Seconds], from: Seconds, to: Seconds, _ context: VariantContext,
        _ waits: MainWaits
    ) -> (count: Int, largest: Seconds, largestNet: Seconds) {
        let inside = times.filter { $0 >= from && $0 <= to }
        let edges = [times.last { $0 < from } ?? from] + inside + [to]
        var largest = 0.0, largestNet = 0.0
        for (a, b) in zip(edges, edges.dropFirst()) {
            let machine = max(context.machineDelay(from: a, to: b), waits.waited(from: a, to: b))
            (largest, largestNet) = (max(largest, b - a), max(largestNet, b - a - machine))
        }
        return (inside.count, largest, largestNet)
    }
}

/// The main thread's run-queue wait so far (runnable, not on a CPU), sampled on the main thread
/// at each tick and at the windows' edges, so a gap between ticks can be told apart from the
/// machine holding the main thread up.
final class MainWaits: Sendable {
    private let samples = Mutex<[(at: Seconds, waited: Seconds)]>([])

    /// Takes a sample of the calling thread (the main thread) at `instant` (default now).
    func sample(
        at instant: Seconds = MonotonicClock.now(), waited: Seconds? = HostPlatform.currentThreadRunnableTime()?.waiting
    ) {
        guard let waited else { return }
        samples.withLock { $0.append((instant, waited)) }
    }

    /// The main thread's run-queue wait from the last sample at or before `from` to the first at
    /// or after `to` (samples sit at the ticks and the windows' edges, so little lies outside
    /// the interval); zero where the kernel keeps no such account.
    func waited(from: Seconds, to: Seconds) -> Seconds {
        let all = samples.withLock { $0 }
        guard let start = all.last(where: { $0.at <= from }), let end = all.first(where: { $0.at >= to }) else {
            return 0
        }
        return max(0, end.waited - start.waited)
    }
}
