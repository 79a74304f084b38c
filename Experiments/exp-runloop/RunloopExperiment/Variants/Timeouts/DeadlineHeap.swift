import Foundation
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
        public let deadline: TimeInterval
    }

    /// The order of deadlines, kept apart from the payloads, not generic and in raw memory: in a
    /// debug build a generic element's every access looks up its metadata at run time, and that
    /// lookup, once per comparison, made a firing pass of 30,000 requests fall tens of
    /// milliseconds behind its deadlines (`perf`), which the findings tests' debug sweep read.
    private var order = DeadlineOrder()
    /// The order to write to: a copy if another heap value shares it.
    private mutating func writableOrder() -> DeadlineOrder {
        if !isKnownUniquelyReferenced(&order) { order = order.copy() }
        return order
    }
    /// By slot: the payload, and a count bumped when the slot is freed.
    private var payloads: [Payload?] = [], generation: [UInt32] = [], freeSlots: [Int] = []

    public init() {}
    public var count: Int { order.count }
    public var isEmpty: Bool { order.count == 0 }
    /// The earliest pending deadline, `nil` when nothing is pending.
    public var earliestDeadline: TimeInterval? { order.earliest }

    /// Adds `payload` due at `deadline`; O(log n).
    public mutating func insert(_ payload: Payload, deadline: TimeInterval) -> Handle {
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            payloads[slot] = payload
        } else {
            slot = payloads.count
            payloads.append(payload)
            generation.append(0)
        }
        writableOrder().insert(deadline: deadline, slot: slot)
        return Handle(slot: slot, generation: generation[slot], deadline: deadline)
    }

    /// Removes and returns the earliest entry; `nil` when empty.
    public mutating func popEarliest() -> (deadline: TimeInterval, payload: Payload)? {
        order.count == 0 ? nil : free(writableOrder().take(at: 0))
    }

    /// Removes and returns every entry due by `now` (deadline ≤ now), earliest first.
    public mutating func popDue(by now: TimeInterval) -> [(deadline: TimeInterval, payload: Payload)] {
        var due: [(deadline: TimeInterval, payload: Payload)] = []
        let order = writableOrder()
        while let first = order.earliest, first <= now { due.append(free(order.take(at: 0))) }
        return due
    }

    /// Removes the entry of `handle` if it is still pending and returns its payload; `nil` if
    /// it already came out (popped or removed before). O(log n).
    @discardableResult
    public mutating func remove(_ handle: Handle) -> Payload? {
        guard handle.slot < generation.count, generation[handle.slot] == handle.generation,
            let i = order.index(ofSlot: handle.slot)
        else { return nil }
        return free(writableOrder().take(at: i)).payload
    }

    /// Hands back the payload of an entry taken out of the order and frees its slot.
    private mutating func free(
        _ entry: (deadline: TimeInterval, slot: Int)
    ) -> (deadline: TimeInterval, payload: Payload) {
        let payload = payloads[entry.slot]!  // set at insert, cleared only here, once per entry
        payloads[entry.slot] = nil
        generation[entry.slot] &+= 1
        freeSlots.append(entry.slot)
        return (entry.deadline, payload)
    }
}

/// A binary min-heap of (deadline, insertion sequence, slot), with the map from slot to heap
/// index that lets an entry be taken out from the middle.
///
/// Its storage is raw memory it allocates itself: a pointer's subscript is inlined even in a
/// debug build, where an array's generic subscript (or `withUnsafeMutableBufferPointer`) costs
/// a call and a metadata lookup per access. A class, so `DeadlineHeap` copies it before it
/// writes to one it shares (`copy()`), keeping the heap a value.
private final class DeadlineOrder {
    struct Entry {
        var deadline: TimeInterval, sequence: UInt64, slot: Int
        func precedes(_ other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : sequence < other.sequence
        }
    }

    private(set) var count = 0
    private var capacity = 0, slots = 0, nextSequence: UInt64 = 0
    private var heap: UnsafeMutablePointer<Entry>
    /// By slot: index in `heap`, or -1 when the slot holds no pending entry.
    private var position: UnsafeMutablePointer<Int>

    init(capacity: Int = 16) {
        self.capacity = capacity
        heap = .allocate(capacity: capacity)
        position = .allocate(capacity: capacity)
    }

    deinit {
        heap.deallocate()
        position.deallocate()
    }

    func copy() -> DeadlineOrder {
        let other = DeadlineOrder(capacity: capacity)
        other.heap.initialize(from: heap, count: count)
        other.position.initialize(from: position, count: slots)
        (other.count, other.slots, other.nextSequence) = (count, slots, nextSequence)
        return other
    }

    var earliest: TimeInterval? { count > 0 ? heap[0].deadline : nil }
    func index(ofSlot slot: Int) -> Int? { slot < slots && position[slot] >= 0 ? position[slot] : nil }

    /// Adds an entry for `slot`, which is either one used before or the next new one.
    func insert(deadline: TimeInterval, slot: Int) {
        if count == capacity || slot >= capacity { grow() }
        while slots <= slot { position[slots] = -1; slots += 1 }
        heap[count] = Entry(deadline: deadline, sequence: nextSequence, slot: slot)
        nextSequence &+= 1
        count += 1
        siftUp(count - 1)
    }

    /// Takes the entry at heap index `i` out, keeping the heap property.
    func take(at i: Int) -> (deadline: TimeInterval, slot: Int) {
        let entry = heap[i]
        count -= 1
        if i < count {
            let last = heap[count]
            heap[i] = last
            position[last.slot] = i
            // The moved entry may belong above or below its new place.
            if i > 0, last.precedes(heap[(i - 1) / 2]) { siftUp(i) } else { siftDown(i) }
        }
        position[entry.slot] = -1
        return (entry.deadline, entry.slot)
    }

    /// Doubles both arrays (slots never outnumber the entries ever pending at once).
    private func grow() {
        let larger = capacity * 2
        let newHeap = UnsafeMutablePointer<Entry>.allocate(capacity: larger),
            newPosition = UnsafeMutablePointer<Int>.allocate(capacity: larger)
        newHeap.moveInitialize(from: heap, count: count)
        newPosition.moveInitialize(from: position, count: slots)
        heap.deallocate()
        position.deallocate()
        (heap, position, capacity) = (newHeap, newPosition, larger)
    }

    // The sifts read the stored properties once: in a debug build each read of a class's
    // property is also a dynamic exclusivity check.
    private func siftUp(_ start: Int) {
        let heap = heap, position = position
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

    private func siftDown(_ start: Int) {
        let heap = heap, position = position, count = count
        var i = start
        let entry = heap[i]
        while true {
            let left = 2 * i + 1
            guard left < count else { break }
            let right = left + 1
            let child = right < count && heap[right].precedes(heap[left]) ? right : left
            guard heap[child].precedes(entry) else { break }
            heap[i] = heap[child]
            position[heap[i].slot] = i
            i = child
        }
        heap[i] = entry
        position[entry.slot] = i
    }
}
