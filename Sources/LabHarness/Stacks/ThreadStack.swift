/// One thread's stack as a snapshot caught it (the `stacks` entries of a variant in JSON).
///
/// `frames` run from the innermost call outwards, each `symbol (file:line)` when the binary has
/// debug information, `symbol` when only its symbol table names it, `image+0xOFFSET` otherwise.
/// A thread that did not answer has no frames.
public struct ThreadStack: Sendable, Equatable, Codable {
    /// The kernel's name for the thread.
    public var thread: String
    public var tid: Int
    /// The kernel's state letter when the snapshot began (`R`, `S`, `D`...), before the request
    /// for stacks woke the thread.
    public var state: String
    public var frames: [String]

    public init(thread: String, tid: Int, state: String, frames: [String]) {
        self.thread = thread
        self.tid = tid
        self.state = state
        self.frames = frames
    }
}
