/// What a snapshot gathers while the process lives: thread names and states, each thread's
/// return addresses, the process's mappings. `named()` turns it into a `StackSnapshot`, which
/// runs `addr2line` and may happen after the process is gone.
public struct RawStacks: Sendable {
    public var threads: [ThreadInfo]
    /// Return addresses by thread id, innermost first, as each thread's handler wrote them.
    public var answers: [Int: [UInt]]
    var maps: ProcessMaps
    /// Set when some or all stacks could not be had: one line for the evidence.
    public var note: String?
    /// Seconds the capture took.
    public var seconds: Double

    public init(
        threads: [ThreadInfo], answers: [Int: [UInt]] = [:], maps: ProcessMaps = ProcessMaps(mappings: []),
        note: String? = nil, seconds: Double = 0
    ) {
        self.threads = threads
        self.answers = answers
        self.maps = maps
        self.note = note
        self.seconds = seconds
    }

    /// The frames named (within `budget`, `StackCapture.symbolBudget` unless told); a naming
    /// problem joins the note.
    public func named(
        symbolizer: StackSymbolizer = StackSymbolizer(), budget: Seconds = StackCapture.symbolBudget
    ) -> StackSnapshot {
        let start = MonotonicClock.now()
        let named =
            answers.isEmpty
            ? StackSymbolizer.Named(frames: [:], note: nil)
            : symbolizer.name(answers, maps: maps, budget: budget)
        let stacks = threads.map {
            ThreadStack(
                thread: $0.name, tid: $0.id, state: $0.state?.rawValue ?? "?", frames: named.frames[$0.id] ?? [])
        }
        let notes = [note, named.note.map { "stacks: " + $0 }].compactMap { $0 }
        return StackSnapshot(
            threads: stacks, note: notes.isEmpty ? nil : notes.joined(separator: "; "),
            seconds: seconds + (MonotonicClock.now() - start))
    }
}
