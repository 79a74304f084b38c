/// Questions a finding asks of a snapshot, answered from the frames.
extension Array where Element == ThreadStack {
    /// The threads that have a frame containing `callee` with a frame containing `caller`
    /// further out (any depth), e.g. `waiting(in: "DispatchSemaphore", calledFrom: "globalCaller")`.
    public func waiting(in callee: String, calledFrom caller: String) -> [ThreadStack] {
        filter { stack in
            guard let inner = stack.frames.firstIndex(where: { $0.contains(callee) }) else { return false }
            return stack.frames[(inner + 1)...].contains { $0.contains(caller) }
        }
    }

    /// Whether the snapshot can answer `waiting(in:calledFrom:)`: a frame containing `callee`
    /// and one containing `caller` are named somewhere in it. A snapshot whose naming ran out of
    /// time for a library ("no time left to name libdispatch.so") names neither that library's
    /// frames nor the waits in them; it says nothing either way, and a finding falls back on
    /// what it counted.
    public func canTell(in callee: String, calledFrom caller: String) -> Bool {
        let frames = flatMap(\.frames)
        return frames.contains { $0.contains(callee) } && frames.contains { $0.contains(caller) }
    }

    /// A clause a finding can quote: `6 threads wait in DispatchSemaphore.wait called from
    /// Callers.globalCaller`, or `nil` when none does.
    public func whereClause(in callee: String, calledFrom caller: String) -> String? {
        let found = waiting(in: callee, calledFrom: caller)
        guard !found.isEmpty else { return nil }
        let names = Set(found.map { ThreadLabel.readable($0.thread) }).sorted().prefix(2).joined(separator: ", ")
        return "\(found.count) thread\(found.count == 1 ? "" : "s") (\(names)) wait in \(callee) called from \(caller)"
    }
}
