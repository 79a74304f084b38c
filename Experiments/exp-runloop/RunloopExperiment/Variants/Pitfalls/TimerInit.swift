import CoreFoundation
import Foundation
import LabHarness
import Synchronization

/// When does a one-shot timer first fire, by constructor? Each is added to a fresh run loop on
/// its own thread, all at once, with the same interval.
///
/// On Linux `Timer(timeInterval:repeats:block:)` sets its first fire date to "now" instead of
/// now + interval (swift-corelibs-foundation issue 4712), so it fires at once; a timeout built
/// on it times out immediately. `Timer(fire:interval:repeats:block:)` and
/// `Timer.scheduledTimer(withTimeInterval:repeats:block:)` wait their interval.
enum TimerInit {
    /// The one rule for a first fire, for this variant's outcome and its finding: below
    /// `atOnce` of the interval net of stalls, and below `afterInterval` as measured, it fired
    /// at once; at or above `afterInterval`, it waited. A stall only ever delays a timer, so the
    /// net figure keeps a stall from hiding a fire that was due at once; the measured one, which
    /// no stall can shorten, keeps a stall taken off a timer that waited its interval (its
    /// stall came before it was due, and delayed nothing) from reading as "at once".
    static let atOnce = Threshold("at once", 50, "%"), afterInterval = Threshold("after the interval", 90, "%")
    static func firedAtOnce(measured: Double, net: Double, interval: Double) -> Bool {
        net * 100 < atOnce.value * interval && !waited(measured, interval: interval)
    }
    static func waited(_ delay: Double, interval: Double) -> Bool { delay * 100 >= afterInterval.value * interval }
    /// A first fire that looks waited as measured, while a stall the control saw covers all but
    /// `stallCovers` of it: a fire due at once that the stall held back and a timer that waited
    /// through the stall read the same, so the reading judges nothing either way (a 240 ms first
    /// fire of a 250 ms timer with 235 ms of it stalled).
    static let stallCovers = Threshold("stall leaves less than", 10, "% of the interval")
    static func ambiguous(measured: Double, net: Double, interval: Double) -> Bool {
        waited(measured, interval: interval) && net * 100 < stallCovers.value * interval
    }

    enum Constructor: String, CaseIterable, Sendable {
        case timeInterval = "time_interval_init", fireDate = "fire_date_init", scheduled = "scheduled"

        var label: String {
            switch self {
            case .timeInterval: "Timer(timeInterval:)";
            case .fireDate: "Timer(fire:)";
            case .scheduled: "scheduledTimer"
            }
        }
    }

    static func run(_ context: VariantContext) -> VariantRecord {
        let interval = context.parameters(RunloopParameters.self).interval
        let delays = Mutex<[Constructor: TimeInterval]>([:])
        let armedAt = MonotonicClock.now()
        let group = DispatchGroup()
        for constructor in Constructor.allCases {
            group.enter()
            NamedThread.start("rl.timer") {
                let start = MonotonicClock.now()
                let block: @Sendable (Timer) -> Void = { _ in
                    let delay = MonotonicClock.now() - start
                    delays.withLock { $0[constructor] = delay }
                    CFRunLoopStop(CFRunLoopGetCurrent())
                }
                switch constructor {
                case .timeInterval:
                    RunLoop.current.add(Timer(timeInterval: interval, repeats: false, block: block), forMode: .default)
                case .fireDate:
                    RunLoop.current.add(
                        Timer(fire: Date(timeIntervalSinceNow: interval), interval: 0, repeats: false, block: block),
                        forMode: .default)
                case .scheduled:
                    _ = Timer.scheduledTimer(withTimeInterval: interval, repeats: false, block: block)
                }
                CFRunLoopRun()
                group.leave()
            }
        }
        guard group.wait(timeout: .now() + .milliseconds(Int((3 * interval + 2) * 1000))) == .success else {
            return VariantRecord(outcome: .deadlock, evidence: "a timer never fired")
        }
        context.progress.advance()
        let measured = delays.withLock { $0 }
        // The early constructor's first fire without what a machine stall added to it.
        let earlyDelay = measured[.timeInterval] ?? 0
        let earlyNet = earlyDelay - context.machineDelay(from: armedAt, to: armedAt + earlyDelay)
        var metrics: Metrics = [RunloopMetric.intervalMs: interval * 1000]
        for c in Constructor.allCases { metrics["first_fire.\(c.rawValue)_ms"] = (measured[c] ?? .nan) * 1000 }
        metrics[RunloopMetric.firstFireTimeIntervalInitExcessMs] =
            measured[.timeInterval] == nil ? nil : earlyNet * 1000
        let early = firedAtOnce(measured: earlyDelay, net: earlyNet, interval: interval)
        let othersOnTime = [Constructor.fireDate, .scheduled].allSatisfy {
            waited(measured[$0] ?? 0, interval: interval)
        }
        let text = Constructor.allCases.map { "\($0.label) \(Format.seconds(measured[$0] ?? .nan))" }.joined(
            separator: ", ")
        let outcome: Outcome = !othersOnTime ? .failed : early ? .firesEarly : .completed
        let unclear = ambiguous(measured: earlyDelay, net: earlyNet, interval: interval)
        return VariantRecord(
            outcome: outcome, metrics: metrics,
            evidence:
                "first fire of a \(Format.seconds(interval)) timer: \(text) [\(atOnce), \(afterInterval)]",
            mechanism: unclear
                ? .notSeen(
                    "a stall covered Timer(timeInterval:)'s first fire: \(Format.seconds(earlyDelay)), "
                        + "\(Format.seconds(earlyNet)) beyond a same-moment control [\(stallCovers)]") : nil)
    }
}
