import LabHarness
import RunloopExperiment
import XCTest

/// The min-heap behind `deadline-heap`: entries come out earliest first, equal deadlines in
/// the order they went in, and an entry removed before its time (a request that completed
/// early) never comes out while the rest keep their order.
final class DeadlineHeapTests: XCTestCase {
    /// Pops everything, returning (deadline, payload) pairs in the order they came out.
    func drain(_ heap: inout DeadlineHeap<Int>) -> [(deadline: Seconds, payload: Int)] {
        var out: [(deadline: Seconds, payload: Int)] = []
        while let next = heap.popEarliest() { out.append(next) }
        return out
    }

    func testRandomDeadlinesComeOutEarliestFirst() {
        var heap = DeadlineHeap<Int>()
        let deadlines = (0..<5000).map { _ in Double.random(in: 0..<1000) }
        for (i, d) in deadlines.enumerated() { _ = heap.insert(i, deadline: d) }
        XCTAssertEqual(heap.count, 5000)
        XCTAssertEqual(heap.earliestDeadline, deadlines.min())
        let out = drain(&heap)
        XCTAssertEqual(out.map(\.deadline), deadlines.sorted())
        XCTAssertEqual(Set(out.map(\.payload)), Set(0..<5000), "every entry comes out once")
        XCTAssertTrue(heap.isEmpty)
        XCTAssertNil(heap.popEarliest())
    }

    /// The heap is a value: a copy changes on its own (its storage is shared until one writes).
    func testACopyIsIndependent() {
        var heap = DeadlineHeap<Int>()
        for i in 0..<100 { _ = heap.insert(i, deadline: Double(100 - i)) }
        var copy = heap
        _ = copy.insert(-1, deadline: 0)
        XCTAssertEqual(copy.popDue(by: 50).count, 51, "the copy has its new entry and the 50 due by 50")
        XCTAssertEqual(heap.count, 100, "the original kept its entries")
        XCTAssertEqual(drain(&heap).map(\.payload), Array((0..<100).reversed()))
        XCTAssertEqual(drain(&copy).map(\.payload), Array((0..<50).reversed()))
    }

    func testManyEqualDeadlinesComeOutInTheOrderTheyWentIn() {
        var heap = DeadlineHeap<Int>()
        // Ten thousand requests armed in the same clock tick, with a few earlier and later ones mixed in.
        for i in 0..<10_000 { _ = heap.insert(i, deadline: 5) }
        _ = heap.insert(-1, deadline: 1)
        _ = heap.insert(10_000, deadline: 9)
        let out = drain(&heap)
        XCTAssertEqual(out.map(\.payload), [-1] + Array(0..<10_000) + [10_000])
    }

    func testARequestThatCompletedEarlyNeverComesOutAndTheRestStayInOrder() {
        var heap = DeadlineHeap<Int>()
        var handles: [DeadlineHeap<Int>.Handle] = []
        let deadlines = (0..<2000).map { _ in Double.random(in: 0..<100) }
        for (i, d) in deadlines.enumerated() { handles.append(heap.insert(i, deadline: d)) }
        // Every third request completes before its timeout: its entry is removed.
        let completed = Set(stride(from: 0, to: 2000, by: 3))
        for i in completed { XCTAssertEqual(heap.remove(handles[i]), i, "a pending entry is removed and handed back") }
        for i in completed { XCTAssertNil(heap.remove(handles[i]), "removing twice finds nothing") }
        XCTAssertEqual(heap.count, 2000 - completed.count)
        let out = drain(&heap)
        XCTAssertTrue(Set(out.map(\.payload)).isDisjoint(with: completed), "no completed request comes out")
        XCTAssertEqual(out.map(\.payload).count, 2000 - completed.count)
        let kept = (0..<2000).filter { !completed.contains($0) }.map { deadlines[$0] }.sorted()
        XCTAssertEqual(out.map(\.deadline), kept, "the rest still come out earliest first")
        XCTAssertNil(heap.remove(handles[1]), "an entry that already came out cannot be removed")
    }

    /// Slots are reused: the handle of an entry that already came out must not remove the
    /// entry that took its place.
    func testAStaleHandleNeverRemovesTheEntryThatReusedItsPlace() {
        var heap = DeadlineHeap<String>()
        let old = heap.insert("old", deadline: 1)
        XCTAssertEqual(heap.popEarliest()?.payload, "old")
        let new = heap.insert("new", deadline: 2)
        XCTAssertNil(heap.remove(old))
        XCTAssertEqual(heap.count, 1)
        XCTAssertEqual(heap.remove(new), "new")
        XCTAssertTrue(heap.isEmpty)
    }

    func testPopDueTakesExactlyTheEntriesDueByTheInstant() {
        var heap = DeadlineHeap<Int>()
        for i in 0..<100 { _ = heap.insert(i, deadline: Double(i)) }
        let due = heap.popDue(by: 49.5)
        XCTAssertEqual(due.map(\.payload), Array(0..<50))
        XCTAssertEqual(heap.earliestDeadline, 50)
        XCTAssertEqual(heap.popDue(by: 50).map(\.payload), [50], "an entry due exactly now is due")
        XCTAssertTrue(heap.popDue(by: 50.9).isEmpty)
    }

    /// Inserts, pops and removals in random order against a plain sorted list: the heap must
    /// agree with it after every step, including removals of the root and of the last slot.
    func testRandomInsertsPopsAndRemovalsMatchASortedList() {
        var heap = DeadlineHeap<Int>()
        var model: [(deadline: Seconds, sequence: Int)] = []
        var handles: [Int: DeadlineHeap<Int>.Handle] = [:]
        var sequence = 0
        for _ in 0..<20_000 {
            switch Int.random(in: 0..<10) {
            case 0..<5:
                let d = Double(Int.random(in: 0..<50))   // few distinct values: many ties
                handles[sequence] = heap.insert(sequence, deadline: d)
                model.append((d, sequence))
                sequence += 1
            case 5..<8:
                model.sort { $0.deadline != $1.deadline ? $0.deadline < $1.deadline : $0.sequence < $1.sequence }
                let expected = model.isEmpty ? nil : model.removeFirst()
                let got = heap.popEarliest()
                XCTAssertEqual(got?.payload, expected?.sequence)
                if let got { handles[got.payload] = nil }
            default:
                guard let key = handles.keys.randomElement(), let handle = handles.removeValue(forKey: key) else {
                    continue
                }
                XCTAssertEqual(heap.remove(handle), key)
                model.removeAll { $0.sequence == key }
            }
            XCTAssertEqual(heap.count, model.count)
            XCTAssertEqual(heap.earliestDeadline, model.map(\.deadline).min())
        }
    }
}
