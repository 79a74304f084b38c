import Foundation
import LabHarness
import Synchronization

/// Synchronous wrappers around an asynchronous request whose completion is delivered on the
/// main queue, called on the main thread (xiangwangfeng's article, and any "make this call
/// synchronous" helper).
///
/// The request finishes on a background thread after `timeout` seconds and queues its
/// completion on the main queue. The main queue runs only when the main thread lets it: by
/// returning to its run loop (or `dispatchMain`). A wrapper that blocks the main thread on a
/// semaphore never lets it, so the completion that would signal the semaphore never runs. A
/// wrapper that runs the main run loop until the completion has run returns.
///
/// Progress counts the steps: 1 the request finished and queued its completion, 2 the
/// completion ran, 3 the wrapper returned.
enum MainThreadWrapper {
    static let steps = 3

    /// Starts the request; `completion` runs on the main queue.
    static func startRequest(
        duration: TimeInterval, progress: ProgressCounter, completion: @escaping @Sendable () -> Void
    ) {
        NamedThread.start("rl.network") {
            MonotonicClock.sleep(for: duration)
            progress.advance()  // step 1: finished, completion queued
            DispatchQueue.main.async {
                progress.advance()  // step 2: the main queue ran the completion
                completion()
            }
        }
    }

    /// Blocks the main thread on a semaphore until the completion signals it: never. Never
    /// inlined: the finding looks for this frame under the semaphore wait.
    @inline(never)
    static func semaphore(_ context: VariantContext) -> VariantRecord {
        if let refused = context.mainThreadRefusal(blocksItForGood: true) { return refused }
        let start = MonotonicClock.now()
        let done = DispatchSemaphore(value: 0)
        startRequest(duration: context.parameters(RunloopParameters.self).request, progress: context.progress) {
            done.signal()
        }
        done.wait()  // the deadlock is the point: the completion that signals this needs this thread
        context.progress.advance()
        return record(wall: MonotonicClock.now() - start, passes: nil, progress: context.progress)
    }

    /// Runs the main run loop until the completion has run.
    static func runLoop(_ context: VariantContext) -> VariantRecord {
        if let refused = context.mainThreadRefusal() { return refused }
        let start = MonotonicClock.now()
        let done = Atomic<Bool>(false)
        startRequest(duration: context.parameters(RunloopParameters.self).request, progress: context.progress) {
            done.store(true, ordering: .releasing)
        }
        var passes = 0
        // The main run loop always has a source, the main queue's port, so each pass sleeps
        // until something arrives (the completion, here) instead of spinning.
        while !done.load(ordering: .acquiring) {
            _ = RunLoop.current.run(mode: .default, before: .distantFuture)
            passes += 1
        }
        context.progress.advance()
        return record(wall: MonotonicClock.now() - start, passes: passes, progress: context.progress)
    }

    private static func record(wall: TimeInterval, passes: Int?, progress: ProgressCounter) -> VariantRecord {
        var metrics: Metrics = [
            RunloopMetric.total: 1, RunloopMetric.completed: 1, RunloopMetric.steps: Double(progress.value),
            RunloopMetric.wallS: wall,
        ]
        metrics[RunloopMetric.passes] = passes.map(Double.init)
        let how = passes.map { " after \(SpinWrapper.passes($0)) of the main run loop" } ?? ""
        return VariantRecord(
            outcome: .completed, metrics: metrics,
            evidence: "the wrapper returned in \(Format.seconds(wall))\(how)")
    }
}
