import Foundation
import LabHarness
import Synchronization

/// One row per item of a trial (a request, a caller), each row a value whose optional fields
/// are the instants the item reached its steps (`nil`: not yet, or never).
///
/// Any thread records a step of item `i` (`mark(i, \.fired)`); the trial counts the items that
/// reached a step while it runs (`count(\.fired)`) and reads the whole table when it is done
/// (`snapshot()`). These are a trial's measurements, not its events: the events of thousands of
/// items would bury the trial's own in the report.
final class StepTable<Row: Sendable>: Sendable {
    /// A step of a row: the field that holds its instant.
    typealias Step = WritableKeyPath<Row, TimeInterval?>

    /// Rows `s`, `s + n`, `s + 2n`… of `n` stripes share stripe `s`'s lock, so threads marking
    /// different items seldom wait for one another: a trial may wake 100,000 items within a few
    /// milliseconds, and a queue on one lock would take CPU from what it measures.
    private final class Stripe: Sendable {
        let rows: Mutex<[Row]>
        init(_ rows: [Row]) { self.rows = Mutex(rows) }
    }

    private let stripes: [Stripe]
    /// How many rows the table has.
    let count: Int

    /// `count` rows, each starting as `row` (nothing happened yet).
    init(count: Int, row: Row) {
        self.count = count
        let n = Swift.max(1, Swift.min(64, count))
        stripes = (0..<n).map { s in
            Stripe([Row](repeating: row, count: Swift.max(0, count - s + n - 1) / n))
        }
    }

    private func withRow<T>(_ index: Int, _ body: (inout Row) -> T) -> T {
        stripes[index % stripes.count].rows.withLock { body(&$0[index / stripes.count]) }
    }

    /// Records that item `index` reached `step` now, or records `value` there.
    func mark(_ index: Int, _ step: Step, _ value: TimeInterval? = nil) {
        let now = value ?? MonotonicClock.now()
        withRow(index) { $0[keyPath: step] = now }
    }

    /// Changes several fields of item `index`'s row at once (one lock for all of them).
    func update(_ index: Int, _ change: (inout Row) -> Void) { withRow(index, change) }

    /// Item `index`'s row as it stands.
    subscript(index: Int) -> Row { withRow(index) { $0 } }

    /// Every row as it stands, in item order.
    func snapshot() -> [Row] {
        let parts = stripes.map { $0.rows.withLock { $0 } }
        return (0..<count).map { parts[$0 % parts.count][$0 / parts.count] }
    }

    /// How many items reached `step` so far.
    func count(_ step: KeyPath<Row, TimeInterval?>) -> Int {
        stripes.reduce(0) { sum, stripe in
            sum + stripe.rows.withLock { rows in rows.count { $0[keyPath: step] != nil } }
        }
    }
}

/// How many of something are in use right now (threads inside a call, requests in flight), and
/// the most at once: counted where it happens (`enter`/`leave`, from any thread) rather than
/// inferred from a total that holds other things too.
final class PeakGauge: Sendable {
    private let state = Mutex((now: 0, peak: 0))

    func enter() {
        state.withLock { s in
            s.now += 1; s.peak = max(s.peak, s.now)
        }
    }
    func leave() { state.withLock { s in s.now -= 1 } }
    var current: Int { state.withLock { $0.now } }
    var peak: Int { state.withLock { $0.peak } }
}
