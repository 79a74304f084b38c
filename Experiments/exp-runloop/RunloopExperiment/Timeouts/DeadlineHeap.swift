import LabHarness

/// A binary min-heap of pending deadlines, earliest first, that can also remove an entry
/// before its time (a request that completed before its timeout).
///
/// Order: by deadline, and among equal deadlines by insertion (first armed, first woken), so
/// ten thousand requests issued in the same clock tick come out in the order they went in.
///
/// Cancellation uses an index map rather than lazy deletion. Each entry lives in a slot; the
/// map `position[slot]` says where in the heap array it is now (one store per move), so
/// `remove` finds it in O(1) and sifts in O(log n), and the entry, with whatever its payload
/// holds (such as a continuation), is gone at once. Lazy deletion (mark the entry, skip it when
/// it comes out) would be cheaper per cancel, but in a networking client most requests complete
/// before their timeout: their tombstones would stay until their deadlines, so the heap and its
/// memory would grow with requests per second × timeout instead of with the requests in flight,
/// and every firing pass would wade through them.
///
/// Layout: the heap array holds the deadline and tie-breaker inline, so a sift compares
/// neighbouring memory instead of chasing a pointer per level (with 100,000 entries, a pointer
/// per comparison was a cache miss per comparison and made the first pops of a flood the slow
/// part). Payloads and positions sit in arrays by slot; freed slots are reused, and a slot's
/// generation changes when it is freed, so a stale handle never removes a newer entry.
///
/// Not thread-safe: the owner keeps it behind a lock. A `Handle` belongs to the heap that made it.
public struct DeadlineHeap<Payload> {
    /// What `insert` returns and `remove` takes.
    public struct Handle: Sendable, Equatable {
        fileprivate let slot: Int, generation: UInt32
        /// The deadline the entry was inserted with.
        public let deadline: Seconds
    }

    private struct Entry {
        var deadline: Seconds, sequence: UInt64, slot: Int
        func precedes(_ other: Entry) -> Bool { deadline != other.deadline ? deadline < other.deadline : sequence < other.sequence }
    }

    private var heap: [Entry] = []
    /// By slot: index in `heap`, or -1 when the slot is free.
    private var position: [Int] = []
    private var generation: [UInt32] = [], payloads: [Payload?] = [], freeSlots: [Int] = []
    private var nextSequence: UInt64 = 0

    public init() {}
    public var count: Int { heap.count }
    public var isEmpty: Bool { heap.isEmpty }
    /// The earliest pending deadline, `nil` when nothing is pending.
    public var earliestDeadline: Seconds? { heap.first?.deadline }

    /// Adds `payload` due at `deadline`; O(log n).
    public mutating func insert(_ payload: Payload, deadline: Seconds) -> Handle {
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            payloads[slot] = payload
        } else {
            slot = payloads.count
            payloads.append(payload)
            position.append(-1)
            generation.append(0)
        }
        heap.append(Entry(deadline: deadline, sequence: nextSequence, slot: slot))
        nextSequence &+= 1
        position[slot] = heap.count - 1
        siftUp(heap.count - 1)
        return Handle(slot: slot, generation: generation[slot], deadline: deadline)
    }

    /// Removes and returns the earliest entry; `nil` when empty.
    public mutating func popEarliest() -> (deadline: Seconds, payload: Payload)? {
        heap.isEmpty ? nil : take(at: 0)
    }

    /// Removes and returns every entry due by `now` (deadline ≤ now), earliest first.
    public mutating func popDue(by now: Seconds) -> [(deadline: Seconds, payload: Payload)] {
        var due: [(deadline: Seconds, payload: Payload)] = []
        while let first = heap.first, first.deadline <= now { due.append(take(at: 0)) }
        return due
    }

    /// Removes the entry of `handle` if it is still pending and returns its payload; `nil` if
    /// it already came out (popped or removed before). O(log n).
    @discardableResult
    public mutating func remove(_ handle: Handle) -> Payload? {
        guard handle.slot < position.count, generation[handle.slot] == handle.generation else { return nil }
        let i = position[handle.slot]
        guard i >= 0 else { return nil }
        return take(at: i).payload
    }

    /// Takes the entry at heap index `i` out, keeping the heap property, and frees its slot.
    private mutating func take(at i: Int) -> (deadline: Seconds, payload: Payload) {
        let entry = heap[i]
        let last = heap.removeLast()
        if i < heap.count {
            heap[i] = last
            position[last.slot] = i
            // The moved entry may belong above or below its new place.
            if i > 0, last.precedes(heap[(i - 1) / 2]) { siftUp(i) } else { siftDown(i) }
        }
        let payload = payloads[entry.slot]!   // set at insert, cleared only here, once per entry
        payloads[entry.slot] = nil
        position[entry.slot] = -1
        generation[entry.slot] &+= 1
        freeSlots.append(entry.slot)
        return (entry.deadline, payload)
    }

    private mutating func siftUp(_ start: Int) {
        var i = start
        let entry = heap[i]
        while i > 0 {
            let parent = (i - 1) / 2
            guard entry.precedes(heap[parent]) else { break }
            heap[i] = heap[parent]
            position[heap[i].slot] = i
            i = parent
        }
        heap[i] = entry
        position[entry.slot] = i
    }

    private mutating func siftDown(_ start: Int) {
        var i = start
        let entry = heap[i]
        let n = heap.count
        while true {
            let left = 2 * i + 1
            guard left < n else { break }
            let right = left + 1
            let child = right < n && heap[right].precedes(heap[left]) ? right : left
            guard heap[child].precedes(entry) else { break }
            heap[i] = heap[child]
            position[heap[i].slot] = i
            i = child
        }
        heap[i] = entry
        position[entry.slot] = i
    }
}
