import LabHarness
import Synchronization

/// Records when each unit of work started and how many ran at once: the flood's own account of
/// "blocks outnumber threads", measured from inside the blocks.
final class BlockLedger: Sendable {
    private struct State {
        var starts: [Seconds] = []
        var running = 0
        var maxRunning = 0
        var finished = 0
        var lateness: [Seconds] = []
    }

    private let state = Mutex(State())
    /// Monotonic instant the work was submitted; every time here is relative to it.
    let origin: Seconds
    private let progress: ProgressCounter

    init(progress: ProgressCounter, origin: Seconds = MonotonicClock.now()) {
        self.progress = progress
        self.origin = origin
    }

    /// A unit of work starts running.
    func begin() {
        let t = MonotonicClock.now() - origin
        state.withLock { s in
            s.starts.append(t)
            s.running += 1
            s.maxRunning = max(s.maxRunning, s.running)
        }
        progress.advance()
    }

    /// A unit of work ends.
    func end() {
        state.withLock { s in
            s.running -= 1
            s.finished += 1
        }
    }

    /// A timer fired `lateness` seconds after its deadline (it holds no thread, so it begins and
    /// ends at once).
    func fired(lateness: Seconds) {
        state.withLock { $0.lateness.append(lateness) }
        begin()
        end()
    }

    var started: Int { state.withLock { $0.starts.count } }
    var finished: Int { state.withLock { $0.finished } }
    var maxRunning: Int { state.withLock { $0.maxRunning } }
    var lastStart: Seconds? { state.withLock { $0.starts.max() } }
    var lateness: [Seconds] { state.withLock { $0.lateness } }

    /// `[[t, started so far], ...]`, at most `maxPoints` points (always the first and last).
    func startedSeries(maxPoints: Int = 400) -> [[Double]] {
        let starts = state.withLock { $0.starts }.sorted()
        guard !starts.isEmpty else { return [] }
        let stride = max(1, starts.count / maxPoints)
        var points: [[Double]] = [[0, 0]]
        for (i, t) in starts.enumerated() where (i + 1) % stride == 0 || i == starts.count - 1 {
            points.append([t, Double(i + 1)])
        }
        return points
    }
}
