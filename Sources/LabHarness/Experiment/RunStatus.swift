import Synchronization

/// Live state of a run, for the progress line: which trials are running and how far along.
public final class RunStatus: Sendable {
    struct Running: Sendable {
        var variant: String
        var startedAt: Seconds
        var progress: Int?
        var total: Int?
    }

    private struct State {
        var running: [Int: Running] = [:]
        var finished = 0
        var planned = 0
    }

    public let title: String
    public let startedAt = MonotonicClock.now()
    private let state = Mutex(State())

    public init(title: String) { self.title = title }

    public func planned(_ count: Int) { state.withLock { $0.planned = count } }

    public func started(_ key: Int, variant: String, total: Int?) {
        let now = MonotonicClock.now()
        state.withLock { $0.running[key] = Running(variant: variant, startedAt: now, progress: nil, total: total) }
    }

    func progressed(_ key: Int, _ value: Int) { state.withLock { $0.running[key]?.progress = value } }

    public func finished(_ key: Int) {
        state.withLock { s in
            s.running[key] = nil
            s.finished += 1
        }
    }

    /// `exp-runloop · 3/12 done · dedicated-thread 140/300, timer-init · 12.4 s`
    public func line() -> String {
        let (running, finished, planned) = state.withLock { s in
            (s.running.sorted { $0.key < $1.key }.map(\.value), s.finished, s.planned)
        }
        let items = running.map { r -> String in
            if let p = r.progress, let t = r.total { return "\(r.variant) \(p)/\(t)" }
            if let p = r.progress { return "\(r.variant) \(p)" }
            return r.variant
        }
        var parts = ["\(title)", "\(finished)/\(planned) done"]
        if !items.isEmpty { parts.append(items.joined(separator: ", ")) }
        parts.append(Format.seconds(MonotonicClock.now() - startedAt))
        return parts.joined(separator: " · ")
    }
}
