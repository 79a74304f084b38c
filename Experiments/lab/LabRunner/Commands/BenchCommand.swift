import Foundation
import LabHarness

/// `lab bench`: what the harness itself costs, measured here and now. These are the figures the
/// README quotes; run it as `swift run -c release lab bench` (debug builds are several times
/// slower and say nothing about the harness).
public enum BenchCommand {
    public struct Figure: Sendable, Codable, Equatable {
        public var name: String
        public var value: Double
        public var unit: String
        /// The target, in words, if the figure has one.
        public var target: String?
        public var met: Bool?
        public var detail: String
    }

    public struct Result: Sendable, Codable {
        public var kind = "runloop-lab.bench"
        public var schema = 1
        public var labVersion = LabVersion.current
        public var platform = PlatformInfo.current
        public var optimized: Bool
        public var figures: [Figure]

        enum CodingKeys: String, CodingKey {
            case kind, schema, platform, optimized, figures
            case labVersion = "lab_version"
        }
    }

    public static var isOptimizedBuild: Bool {
        #if DEBUG
        return false
        #else
        return true
        #endif
    }

    /// Runs every benchmark. `launcher` starts `lab`-hosted experiments and the trivial child.
    public static func run(launcher: Launcher, catalog: LabCatalog, log: (String) -> Void = { _ in }) -> Result {
        var figures: [Figure] = []
        for interval in [0.001, 0.01] {
            log("sampler at \(Format.seconds(interval))...")
            figures.append(samplerShare(interval: interval))
        }
        log("bare wake-ups at 10 ms...")
        figures.append(wakeFloor(interval: 0.01))
        log("stall detection...")
        figures.append(stallDetection())
        log("child start-up...")
        figures.append(childStartup(launcher: launcher))
        log("tracked objects...")
        figures.append(trackingCost())
        for entry in catalog.entries {
            // The experiment's bars in its order, each on a run of its own.
            for bar in entry.definition.performanceBars {
                log("\(entry.definition.name): \(bar.title)...")
                figures.append(contentsOf: measure(bar, launcher: launcher, entry: entry))
            }
        }
        return Result(optimized: isOptimizedBuild, figures: figures)
    }

    /// The most the harness may add to a child's own start: its pipes and watches, the result
    /// message and the reap (medians of 20, trial start less bare start).
    static let harnessStartupTargetMs = 5.0

    static func samplerShare(interval: Double) -> Figure {
        let sampler = ThreadSampler(interval: interval)
        sampler.start()
        MonotonicClock.sleep(for: 2)
        let timeline = sampler.stop()
        let share = (timeline.samplerCPU ?? .nan) / max(timeline.duration, 1e-9) * 100
        let target = interval == 0.01 ? "under 1 % of one core" : nil
        return Figure(
            name: "sampler CPU at \(Format.seconds(interval)) interval", value: share, unit: "% of one core",
            target: target, met: target == nil ? nil : share < 1,
            detail: "\(timeline.samples.count) samples in \(Format.seconds(timeline.duration))")
    }

    /// A thread that only wakes every `interval`: the floor under any sampler at that interval
    /// on this machine (on a VM, the wake-up itself is most of the sampler's cost).
    static func wakeFloor(interval: Double) -> Figure {
        let share = ThreadSampler.wakeUpFloor(interval: interval, for: 2) * 100
        return Figure(
            name: "a thread that only wakes every \(Format.seconds(interval)) (the floor)", value: share,
            unit: "% of one core", target: nil, met: nil,
            detail: "what waking alone costs here, for comparison with the sampler")
    }

    /// A counter advances, then stops; the watchdog (window 0.5 s) must notice within the window
    /// plus 100 ms. Five stalls; the worst is reported.
    static func stallDetection() -> Figure {
        let window = 0.5
        var delays: [Double] = []
        for _ in 0..<5 {
            let counter = ProgressCounter()
            let detected = DispatchSemaphore(value: 0)
            let watchdog = Watchdog(counter: counter, window: window) { _ in detected.signal() }
            watchdog.start()
            for _ in 0..<10 { counter.advance(); MonotonicClock.sleep(for: 0.005) }
            let stoppedAt = counter.lastChange
            _ = detected.wait(timeout: .now() + .seconds(5))
            let report = watchdog.stalls.first
            watchdog.stop()
            delays.append((report?.detectedAt ?? .infinity) - stoppedAt)
        }
        let worst = delays.max() ?? .infinity
        return Figure(
            name: "stall detected after it starts (window 500 ms)", value: worst * 1000, unit: "ms (worst of 5)",
            target: "window + 100 ms = 600 ms", met: worst <= window + 0.1,
            detail: "all: " + delays.map { Format.milliseconds($0 * 1000) }.joined(separator: ", "))
    }

    /// Launching a child trial that reports a result and exits: the fixed cost of isolation.
    /// Most of it is the binary's own start, which the harness does not control: on Linux `lab`
    /// links FoundationNetworking (exp-callback's URLSession), whose libcurl and thirty-odd
    /// libraries the dynamic loader maps and relocates at every start. So each trial start is
    /// paired with a bare start of the same binary (spawned and reaped, nothing around it), and
    /// the target is on the difference: what the harness adds (pipes, watches, the result
    /// message, the reap). It was 12.5-13.4 ms in all when the README's table was first
    /// measured, before FoundationNetworking was linked.
    static func childStartup(launcher: Launcher) -> Figure {
        var walls: [Double] = [], bare: [Double] = []
        for _ in 0..<20 {
            let spec = ChildSpec(executable: launcher.executable, arguments: ["bench-child"], budget: 10)
            if let run = try? ChildProcess.run(spec), run.resultPayload != nil { walls.append(run.wall) }
            // The same command, spawned the same way, with nothing around it.
            if let wall = ChildProcess.bareStart(launcher.executable, arguments: ["bench-child"]) { bare.append(wall) }
        }
        let median = LatencySummary.percentile(50, of: walls) ?? .nan,
            bareMedian = LatencySummary.percentile(50, of: bare) ?? .nan
        let added = (median - bareMedian) * 1000
        let ms = { (x: Double) in Format.milliseconds(x * 1000) }
        return Figure(
            name: "child trial start-up (spawn, report, reap), beyond a bare start", value: added,
            unit: "ms (medians of 20)",
            target: "<= \(Format.number(harnessStartupTargetMs)) ms", met: added <= harnessStartupTargetMs,
            detail: "trial start-up \(ms(median)) (min \(ms(walls.min() ?? .nan)), max \(ms(walls.max() ?? .nan)), "
                + "\(walls.count) of 20 ran); a bare start of the same binary \(ms(bareMedian)) "
                + "(\(bare.count) of 20; the binary's own libraries load in it)")
    }

    /// Tracking 100 000 objects and checking each once.
    static func trackingCost() -> Figure {
        final class Item {}
        let tracker = ReleaseTracker()
        let count = 100_000
        var items: [Item] = []
        items.reserveCapacity(count)
        for _ in 0..<count { items.append(Item()) }
        let meter = CostMeter()
        for (i, item) in items.enumerated() { tracker.track(item, "item\(i)") }
        let trackCost = meter.read().wall
        let checkMeter = CostMeter()
        var alive = 0
        for i in 0..<count where tracker.isAlive("item\(i)") { alive += 1 }
        let checkCost = checkMeter.read().wall
        items.removeAll()
        return Figure(
            name: "cost per tracked object", value: trackCost / Double(count) * 1e6, unit: "µs to track",
            target: nil, met: nil,
            detail:
                "\(Format.decimal(checkCost / Double(count) * 1e6, places: 2)) µs per is-alive check; \(alive) of \(count) alive while held"
        )
    }

    /// An experiment's performance bar, measured on a run of its own.
    static func measure(_ bar: PerformanceBar, launcher: Launcher, entry: LabEntry) -> [Figure] {
        let arguments = launcher.selector(entry) + ["--json"] + bar.arguments
        let report =
            (try? ChildProcess.run(ChildSpec(executable: launcher.executable, arguments: arguments, budget: 60)))
            .flatMap { try? ExperimentReport.decode(Data($0.stdout.utf8)) }
        let figures = report.map(bar.judge) ?? []
        guard !figures.isEmpty else {
            return [
                Figure(
                    name: "\(entry.definition.name): \(bar.title)", value: .nan, unit: "", target: "a report",
                    met: false, detail: "the \(entry.definition.name) run did not report")
            ]
        }
        return figures.map {
            Figure(name: $0.name, value: $0.value, unit: $0.unit, target: $0.target, met: $0.met, detail: $0.detail)
        }
    }

    /// The figures as text, every line wrapped to `width` columns like the lab's other
    /// reports (a figure's detail continues under itself).
    public static func render(_ result: Result, style: Style, width: Int = Terminal.defaultColumns) -> String {
        var lines = TextWrap.wrap(
            "lab bench · \(result.platform.os), \(result.platform.cpus) cpus, swift \(result.platform.swift)"
                + (result.optimized
                    ? " · release build" : " · DEBUG build: rerun with `swift run -c release lab bench`"),
            width: width, indent: "  ")
        // The name column, at most a third of the width: a longer name wraps under itself.
        let nameWidth = min(result.figures.map(\.name.count).max() ?? 0, max(10, width / 3))
        let indent = String(repeating: " ", count: 2 + nameWidth + 2)
        for f in result.figures {
            let value = Format.decimal(f.value, places: f.value < 10 ? 3 : 1) + " " + f.unit
            var mark = ""
            if let met = f.met, let target = f.target {
                mark = met ? style.green("  ✓ target \(target)") : style.red("  ✗ target \(target)")
            }
            lines += TextWrap.wrap(
                "  " + f.name.padding(toLength: max(nameWidth, f.name.count), withPad: " ", startingAt: 0) + "  "
                    + value + mark,
                width: width, indent: indent)
            lines += TextWrap.wrap(indent + style.dim(f.detail), width: width, indent: indent)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
