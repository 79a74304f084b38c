import CoreFoundation
import Foundation
import LabHarness
import Synchronization

/// The run-loop synchronous wrapper on a secondary thread (xiangwangfeng's article):
///
///     while !done { RunLoop.current.run(mode: .default, before: .distantFuture) }
///
/// With no source on the thread's run loop, `run(mode:before:)` returns `false` at once, so the
/// `while` turns into a busy loop for as long as the request takes. With a source (a port, or a
/// timer) each pass sleeps until something happens. The request here completes after
/// `min(timeout, 0.5 s)` on another thread (long enough to measure, short enough not to take a
/// core from the other trials for long), then stops the waiting loop's current pass, as a
/// completion delivered to that run loop would.
enum SpinWrapper {
    /// A spinning loop uses this much CPU per wall second, or is runnable this share of the
    /// time (a loaded machine gives it only its share of a core).
    static let busyCPU = Threshold("busy CPU", 0.5, "s/s"), busyRunnable = Threshold("busy runnable", 90, "%")

    /// The one busy-loop rule: this variant's outcome (`busy-loop`) and the no-source-spins
    /// finding both judge a loop by it.
    static func busy(cpuPerWall: Double, runnablePerWall: Double?) -> Bool {
        cpuPerWall >= busyCPU.value || (runnablePerWall ?? 0) * 100 >= busyRunnable.value
    }

    static func run(_ context: VariantContext, withSource: Bool) -> VariantRecord {
        let duration = context.parameters(RunloopParameters.self).interval
        final class Shared: Sendable {
            let done = Atomic<Bool>(false), handle = Mutex<RunLoopHandle?>(nil)
            let finished = DispatchSemaphore(value: 0)
            let result = Mutex<
                (passes: Int, wall: TimeInterval, cpu: TimeInterval?, runnable: TimeInterval?, portMissing: Bool)?
            >(nil)
        }
        let shared = Shared()
        let started = NamedThread.startAndAwait("rl.spin") { start in
            let port = withSource ? SocketPort(tcpPort: 0) : nil
            if let port { RunLoop.current.add(port, forMode: .default) }
            guard start.signalReady(publishing: { shared.handle.withLock { $0 = .current } }) else { return }
            let start = MonotonicClock.now()
            let cpuStart = CPUTime.currentThread()
            // Time on a CPU plus time waiting in the run queue for one (`nil` on Darwin): a
            // busy loop is runnable all the time whatever the load, where its CPU time is only
            // its share of a loaded machine's cores.
            let runnable = { HostPlatform.currentThreadRunnableTime().map { $0.onCPU + $0.waiting } }
            let runnableStart = runnable()
            var passes = 0
            while !shared.done.load(ordering: .acquiring) {
                _ = RunLoop.current.run(mode: .default, before: .distantFuture)
                passes += 1
            }
            let wall = MonotonicClock.now() - start
            let cpu = CPUTime.currentThread().flatMap { end in cpuStart.map { end - $0 } }
            let runnableFor = runnable().flatMap { end in runnableStart.map { end - $0 } }
            if let port { RunLoop.current.remove(port, forMode: .default); port.invalidate() }
            shared.result.withLock { $0 = (passes, wall, cpu, runnableFor, withSource && port == nil) }
            shared.finished.signal()
        }
        guard started else { return VariantRecord(outcome: .failed, evidence: "the wrapper's thread did not start") }
        // The "request": it finishes after `duration`, then ends the waiting loop's pass.
        MonotonicClock.sleep(for: duration)
        shared.done.store(true, ordering: .releasing)
        if let handle = shared.handle.withLock({ $0 }) { CFRunLoopStop(handle.cf) }
        guard shared.finished.wait(timeout: .now() + .seconds(5)) == .success,
            let r = shared.result.withLock({ $0 })
        else {
            return VariantRecord(
                outcome: .deadlock, evidence: "the wrapper did not return within 5 s of its request finishing")
        }
        if r.portMissing { return VariantRecord(outcome: .failed, evidence: "no socket port could be made") }
        context.progress.advance()

        var metrics = Metrics()
        metrics.set([
            RunloopMetric.wallS: r.wall, RunloopMetric.passes: Double(r.passes),
            RunloopMetric.passesPerS: Double(r.passes) / r.wall, RunloopMetric.cpuS: r.cpu,
            RunloopMetric.cpuPerWall: r.cpu.map { $0 / r.wall },
            RunloopMetric.runnablePerWall: r.runnable.map { min($0 / r.wall, 1) },
        ])
        let passesText = "\(passes(r.passes)) of run(mode:before:) in \(Format.seconds(r.wall))"
        guard let cpuPerWall = metrics[RunloopMetric.cpuPerWall] else {
            return VariantRecord(outcome: .failed, metrics: metrics, evidence: passesText + "; CPU time unknown")
        }
        let runnable = metrics[RunloopMetric.runnablePerWall]
        let spun = busy(cpuPerWall: cpuPerWall, runnablePerWall: runnable)
        let cpuText = "\(Format.decimal(cpuPerWall, places: 2)) CPU-s per s"
        let runnableText = runnable.map { ", runnable \(Format.decimal($0 * 100, places: 0)) % of the time" } ?? ""
        return VariantRecord(
            outcome: spun ? .busyLoop : .completed, metrics: metrics,
            evidence: "\(passesText); \(cpuText)\(runnableText) [\(busyCPU), \(busyRunnable)]")
    }

    static func passes(_ n: Int) -> String {
        if n >= 1_000_000 { return "\(Format.decimal(Double(n) / 1e6, places: 2))M passes" }
        if n >= 10_000 { return "\(n / 1000)k passes" }
        return n == 1 ? "1 pass" : "\(n) passes"
    }
}
