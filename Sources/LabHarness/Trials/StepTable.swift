import Synchronization

/// One row per item of a trial (a request, a caller), each row a value whose optional fields
/// are the instants the item reached its steps (`nil`: not yet, or never).
///
/// Any thread records a step of item `i` (`mark(i, \.fired)`); the trial counts the items that
/// reached a step while it runs (`count(\.fired)`) and reads the whole table when it is done
/// (`snapshot()`). These are a trial's measurements, not its events: the events of thousands of
/// items would bury the trial's own in the report.
public final class StepTable<Row: Sendable>: Sendable {
    /// A step of a row: the field that holds its instant.
    public typealias Step = WritableKeyPath<Row, Seconds?>

    private let rows: Mutex<[Row]>

    /// `count` rows, each starting as `row` (nothing happened yet).
    public init(count: Int, row: Row) {
        rows = Mutex([Row](repeating: row, count: count))
    }

    /// Records that item `index` reached `step` now, or records `value` there.
    public func mark(_ index: Int, _ step: Step, _ value: Seconds? = nil) {
        let now = value ?? MonotonicClock.now()
        rows.withLock { $0[index][keyPath: step] = now }
    }

    /// Changes several fields of item `index`'s row at once (one lock for all of them).
    public func update(_ index: Int, _ change: (inout Row) -> Void) {
        rows.withLock { change(&$0[index]) }
    }

    /// Item `index`'s row as it stands.
    public subscript(index: Int) -> Row { rows.withLock { $0[index] } }

    /// Every row as it stands.
    public func snapshot() -> [Row] { rows.withLock { $0 } }

    /// How many items reached `step` so far.
    public func count(_ step: KeyPath<Row, Seconds?>) -> Int {
        rows.withLock { rows in rows.reduce(0) { $0 + ($1[keyPath: step] == nil ? 0 : 1) } }
    }
}

/// How many of something are in use right now (threads inside a call, requests in flight), and
/// the most at once: counted where it happens (`enter`/`leave`, from any thread) rather than
/// inferred from a total that holds other things too.
public final class PeakGauge: Sendable {
    private let state = Mutex((now: 0, peak: 0))

    public init() {}

    public func enter() { state.withLock { s in s.now += 1; s.peak = max(s.peak, s.now) } }
    public func leave() { state.withLock { s in s.now -= 1 } }
    public var current: Int { state.withLock { $0.now } }
    public var peak: Int { state.withLock { $0.peak } }
}
