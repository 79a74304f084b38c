/// Threads whose stacks are the same, folded into one entry of a grouped view.
public struct StackGroup: Sendable, Equatable {
    /// The threads, in tid order.
    public var threads: [ThreadStack]
    /// Their common frames, innermost first.
    public var frames: [String]

    /// The call the threads are blocked in: the library frame called by the first frame that
    /// names lab or user code (or the innermost frame when there is no library frame).
    public var blockingCall: String? {
        guard let first = StackGroup.firstUserFrame(frames) else { return frames.first.map(StackGroup.bare) }
        return first > 0 ? StackGroup.bare(frames[first - 1]) : StackGroup.bare(frames[first])
    }

    /// The frames that name lab or user code, innermost first, with their `file:line`.
    public var userFrames: [String] { frames.filter { !StackGroup.isLibraryFrame($0) && !$0.contains("+0x") } }

    /// `6 threads (lab.caller): waiting in OS_dispatch_semaphore.wait() ← Callers.global ← …`:
    /// the runtime noise trimmed to the blocking call and at most `depth` user frames.
    public func summary(depth: Int = 3) -> String {
        let names = Array(Set(threads.map(\.thread))).sorted()
        let who = names.count <= 2 ? names.joined(separator: ", ") : "\(names[0]), \(names[1]), …"
        let count = threads.count == 1 ? "1 thread" : "\(threads.count) threads"
        guard !frames.isEmpty else { return "\(count) (\(who)): no stack" }
        var chain = [blockingCall ?? "?"]
        let user = userFrames.filter { StackGroup.bare($0) != blockingCall }
        chain += user.prefix(depth)
        if user.count > depth { chain.append("…") }
        return "\(count) (\(who)): in " + chain.joined(separator: " ← ")
    }

    /// Folds `stacks` by identical frames; the largest groups first, then by first tid.
    public static func fold(_ stacks: [ThreadStack]) -> [StackGroup] {
        var order: [[String]] = []
        var members: [[String]: [ThreadStack]] = [:]
        for stack in stacks.sorted(by: { $0.tid < $1.tid }) {
            if members[stack.frames] == nil { order.append(stack.frames) }
            members[stack.frames, default: []].append(stack)
        }
        let groups = order.map { StackGroup(threads: members[$0]!, frames: $0) }
        return groups.enumerated().sorted { a, b in
            a.element.threads.count != b.element.threads.count ? a.element.threads.count > b.element.threads.count : a.offset < b.offset
        }.map(\.element)
    }

    /// A frame of the system or the Swift runtime (`symbol (in libdispatch.so)`), or one that
    /// nothing named.
    public static func isLibraryFrame(_ frame: String) -> Bool {
        frame.hasSuffix(")") && frame.contains(" (in ")
    }

    static func firstUserFrame(_ frames: [String]) -> Int? {
        frames.firstIndex { !isLibraryFrame($0) && !$0.contains("+0x") && $0 != "??" }
    }

    /// The symbol alone, without `(file:line)` or `(in image)`.
    public static func bare(_ frame: String) -> String {
        guard frame.hasSuffix(")"), let open = frame.range(of: " (", options: .backwards) else { return frame }
        return String(frame[..<open.lowerBound])
    }
}
