/// Every thread's stack in a process at one moment, or the one line that says why there is none.
public struct StackSnapshot: Sendable, Equatable, Codable {
    public var threads: [ThreadStack]
    /// Set when some or all stacks could not be had: one line for the evidence.
    public var note: String?
    /// Seconds the snapshot took: signalling, waiting for answers and naming the frames.
    public var seconds: Double

    public init(threads: [ThreadStack], note: String? = nil, seconds: Double = 0) {
        self.threads = threads
        self.note = note
        self.seconds = seconds
    }

    /// No stacks at all, for `reason`.
    static func unavailable(_ reason: String, threads: [ThreadInfo] = [], seconds: Double = 0) -> StackSnapshot {
        StackSnapshot(
            threads: threads.map {
                ThreadStack(thread: $0.name, tid: $0.id, state: $0.state?.rawValue ?? "?", frames: [])
            },
            note: "stacks unavailable: \(reason)", seconds: seconds)
    }

    /// Whether at least one thread has frames.
    public var hasFrames: Bool { threads.contains { !$0.frames.isEmpty } }
}
