import Foundation

/// CPU time consumed, in seconds: how much work a measurement cost, as opposed to how long it took.
public enum CPUTime {
    /// User plus system CPU time of the whole process (`getrusage(RUSAGE_SELF)`).
    public static func process() -> Seconds {
        HostPlatform.processCPUTime()
    }

    /// User plus system CPU time of the calling thread (`CLOCK_THREAD_CPUTIME_ID`), or `nil`
    /// where the platform does not keep it.
    public static func currentThread() -> Seconds? {
        var ts = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0 else { return nil }
        return Seconds(ts.tv_sec) + Seconds(ts.tv_nsec) / 1_000_000_000
    }
}

/// Wall and CPU time of a stretch of work, and the ratio that tells a busy loop from a sleep.
public struct Cost: Sendable, Equatable, CustomStringConvertible {
    /// Elapsed monotonic time.
    public var wall: Seconds
    /// Process CPU time (user + system) spent over the same stretch, by every thread.
    public var cpu: Seconds

    public init(wall: Seconds, cpu: Seconds) {
        self.wall = wall
        self.cpu = cpu
    }

    /// CPU seconds burned per wall second: about 1 for one spinning thread, near 0 for a sleeper.
    public var cpuPerWall: Double { wall > 0 ? cpu / wall : 0 }

    public var description: String {
        "wall \(Format.seconds(wall)), cpu \(Format.seconds(cpu)) (\(Format.decimal(cpuPerWall, places: 2)) cpu-s per s)"
    }

    /// Runs `body` and returns its result with what it cost.
    public static func measure<T>(_ body: () throws -> T) rethrows -> (result: T, cost: Cost) {
        let meter = CostMeter()
        let result = try body()
        return (result, meter.read())
    }
}

/// Starts a wall and CPU stopwatch at creation; `read()` gives the cost since then.
public struct CostMeter: Sendable {
    let startWall: Seconds
    let startCPU: Seconds

    public init() {
        startWall = MonotonicClock.now()
        startCPU = CPUTime.process()
    }

    public func read() -> Cost {
        Cost(wall: MonotonicClock.now() - startWall, cpu: CPUTime.process() - startCPU)
    }
}
