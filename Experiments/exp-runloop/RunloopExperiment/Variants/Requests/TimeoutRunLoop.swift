import CoreFoundation
import Foundation
import LabHarness

/// The article's `Foo`: on the calling thread, arm a one-shot timeout timer on this thread's run
/// loop and run the loop until the timer ends it. The thread is busy for the whole timeout:
/// that is what makes *where* this runs matter.
enum TimeoutRunLoop {
    /// How the run loop is run, and so whether `CFRunLoopStop` from the timer ends it.
    enum Style: Sendable {
        /// `CFRunLoopRun()`: returns when the timer calls `CFRunLoopStop`. The timer alone keeps
        /// the loop alive until then, so no port is needed (and on Linux there is no mach port).
        case untilStopped
        /// The article's "double guard": a port, the timer, and `RunLoop.run(until: timeout + guard)`.
        /// `run(until:)` calls `run(mode:before:)` over and over until the date, and
        /// `CFRunLoopStop` only ends the current pass: with the port in place the loop holds its
        /// thread until the guard date, long after the timer fired.
        case untilDate(guardSeconds: TimeInterval)
        /// The article's code as written: a port, the timer, and `RunLoop.run()`. `run()` never returns
        /// after `CFRunLoopStop` (Foundation's documentation says as much), so the thread runs
        /// its loop forever.
        case forever
    }

    /// Runs request `index`; calls `onTimeout` on this thread once the timer has stopped the
    /// loop, and returns when the run loop does (never, for `.forever`). `ownThread`: the thread
    /// was started for this request, so its whole run-queue wait belongs to `runQueueWait`.
    /// Never inlined: the findings look for this frame under `CFRunLoopRun`.
    @inline(never)
    static func run(
        _ index: Int, timeout: TimeInterval, style: Style, log: StepTable<RequestTimes>, gauge: PeakGauge,
        ownThread: Bool = false, onTimeout: @escaping @Sendable () -> Void
    ) {
        let waitedBefore = ownThread ? 0 : (RequestTimes.threadRunQueueWait() ?? 0)
        gauge.enter()
        defer { gauge.leave() }
        let runLoop = RunLoop.current
        // Linux has no NSMachPort and `Port()` traps: a socket port is the portable source
        // that never fires.
        var port: SocketPort?
        if case .untilStopped = style {} else { port = SocketPort(tcpPort: 0) }
        if let port { runLoop.add(port, forMode: .default) }
        // `Timer(fire:interval:repeats:block:)`, not `Timer(timeInterval:repeats:block:)`: on
        // Linux the latter fires at once (see the timer-init variant).
        let due = MonotonicClock.now() + timeout
        let timer = Timer(fire: Date(timeIntervalSinceNow: timeout), interval: 0, repeats: false) { _ in
            log.mark(index, \.fired)
            if let waited = RequestTimes.threadRunQueueWait() { log.mark(index, \.runQueueWait, waited - waitedBefore) }
            CFRunLoopStop(CFRunLoopGetCurrent())
            onTimeout()
        }
        runLoop.add(timer, forMode: .default)
        log.update(index) { $0.markArmed(due: due) }
        switch style {
        case .untilStopped: CFRunLoopRun()
        case .untilDate(let guardSeconds): runLoop.run(until: Date(timeIntervalSinceNow: timeout + guardSeconds))
        case .forever: runLoop.run()
        }
        if let port { runLoop.remove(port, forMode: .default); port.invalidate() }
        log.mark(index, \.released)
    }
}
