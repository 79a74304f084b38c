import LabHarness

/// A binary min-heap of pending deadlines, earliest first, that can also remove an entry
/// before its time (a request that completed before its timeout).
///
/// Order: by deadline, and among equal deadlines by insertion (first armed, first woken), so
/// ten thousand requests issued in the same clock tick come out in the order they went in.
///
/// Cancellation uses an index map rather than lazy deletion. Each entry is a node that knows its
/// current position in the array (updated on every swap, one store), so `remove` finds it in
/// O(1) and sifts in O(log n), and the entry (with whatever its payload holds, such as a
/// continuation) is gone at once. Lazy deletion (mark the entry, skip it when it comes out)
/// would be cheaper per cancel, but in a networking client most requests complete before their
/// timeout: their tombstones would stay until their deadlines, so the heap and its memory would
/// grow with requests per second × timeout instead of with the requests in flight, and every
/// firing pass would wade through them.
///
/// Not thread-safe: the owner keeps it behind a lock. A `Handle` belongs to the heap that made it.
public struct DeadlineHeap<Payload> {
    /// One pending entry. `index` is its position in `nodes`, or -1 once it left the heap.
    public final class Node {
        let deadline: Seconds
        let sequence: UInt64
        var payload: Payload?
        var index: Int

        init(deadline: Seconds, sequence: UInt64, payload: Payload, index: Int) {
            self.deadline = deadline
            self.sequence = sequence
            self.payload = payload
            self.index = index
        }
    }

    /// What `insert` returns and `remove` takes.
    // The node is only read or written by the heap, which its owner keeps behind a lock; the
    // handle merely carries the reference between threads.
    public struct Handle: @unchecked Sendable {
        fileprivate let node: Node
        /// The deadline the entry was inserted with.
        public var deadline: Seconds { node.deadline }
    }

    private var nodes: [Node] = []
    private var nextSequence: UInt64 = 0

    public init() {}

    public var count: Int { nodes.count }
    public var isEmpty: Bool { nodes.isEmpty }
    /// The earliest pending deadline, `nil` when nothing is pending.
    public var earliestDeadline: Seconds? { nodes.first?.deadline }

    /// Adds `payload` due at `deadline`; O(log n).
    public mutating func insert(_ payload: Payload, deadline: Seconds) -> Handle {
        let node = Node(deadline: deadline, sequence: nextSequence, payload: payload, index: nodes.count)
        nextSequence &+= 1
        nodes.append(node)
        siftUp(node.index)
        return Handle(node: node)
    }

    /// Removes and returns the earliest entry; `nil` when empty.
    public mutating func popEarliest() -> (deadline: Seconds, payload: Payload)? {
        guard !nodes.isEmpty else { return nil }
        return take(at: 0)
    }

    /// Removes and returns every entry due by `now` (deadline ≤ now), earliest first.
    public mutating func popDue(by now: Seconds) -> [(deadline: Seconds, payload: Payload)] {
        var due: [(deadline: Seconds, payload: Payload)] = []
        while let first = nodes.first, first.deadline <= now { due.append(take(at: 0)) }
        return due
    }

    /// Removes the entry of `handle` if it is still pending and returns its payload; `nil` if
    /// it already came out (popped or removed before). O(log n).
    @discardableResult
    public mutating func remove(_ handle: Handle) -> Payload? {
        let i = handle.node.index
        guard i >= 0, i < nodes.count, nodes[i] === handle.node else { return nil }
        return take(at: i).payload
    }

    /// Takes the node at `i` out, keeping the heap property.
    private mutating func take(at i: Int) -> (deadline: Seconds, payload: Payload) {
        let node = nodes[i]
        let last = nodes.removeLast()
        if i < nodes.count {
            nodes[i] = last
            last.index = i
            // The moved node may belong above or below its new place.
            if i > 0, precedes(last, nodes[(i - 1) / 2]) { siftUp(i) } else { siftDown(i) }
        }
        node.index = -1
        let payload = node.payload!   // set at insert, cleared only here, and a node leaves once
        node.payload = nil
        return (node.deadline, payload)
    }

    private func precedes(_ a: Node, _ b: Node) -> Bool {
        a.deadline != b.deadline ? a.deadline < b.deadline : a.sequence < b.sequence
    }

    private mutating func siftUp(_ start: Int) {
        var i = start
        let node = nodes[i]
        while i > 0 {
            let parent = (i - 1) / 2
            guard precedes(node, nodes[parent]) else { break }
            nodes[i] = nodes[parent]
            nodes[i].index = i
            i = parent
        }
        nodes[i] = node
        node.index = i
    }

    private mutating func siftDown(_ start: Int) {
        var i = start
        let node = nodes[i]
        let n = nodes.count
        while true {
            let left = 2 * i + 1
            guard left < n else { break }
            let right = left + 1
            let child = right < n && precedes(nodes[right], nodes[left]) ? right : left
            guard precedes(nodes[child], node) else { break }
            nodes[i] = nodes[child]
            nodes[i].index = i
            i = child
        }
        nodes[i] = node
        node.index = i
    }
}
