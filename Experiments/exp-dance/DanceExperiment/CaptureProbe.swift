/// A native object's strong, weak and unowned reference counts, read through the standard
/// library's debugger entry points. An absolute count means little (a debug build holds
/// temporaries, a first weak reference adds a side table); a *difference* between two readings
/// taken the same way is exact in debug and release alike, and that is all the lab uses.
public struct RefCounts: Sendable, Equatable, CustomStringConvertible {
    public var strong: Int, weak: Int, unowned: Int

    /// Never inlined: every reading passes the object the same way, so differences cancel the call's own hold.
    @inline(never)
    public static func of(_ object: AnyObject) -> RefCounts {
        RefCounts(
            strong: Int(_getRetainCount(object)), weak: Int(_getWeakRetainCount(object)),
            unowned: Int(_getUnownedRetainCount(object)))
    }

    public static func - (a: RefCounts, b: RefCounts) -> RefCounts {
        RefCounts(strong: a.strong - b.strong, weak: a.weak - b.weak, unowned: a.unowned - b.unowned)
    }
    public static let zero = RefCounts(strong: 0, weak: 0, unowned: 0)

    /// As a change: `+1 strong`, `+1 weak, +1 unowned`, or `nothing`.
    public var description: String {
        let parts = [(strong, "strong"), (weak, "weak"), (unowned, "unowned")].filter { $0.0 != 0 }.map {
            ($0.0 > 0 ? "+" : "") + "\($0.0) \($0.1)"
        }
        return parts.isEmpty ? "nothing" : parts.joined(separator: ", ")
    }
}

/// Shows what a closure captured by how the owner's reference counts change: when the closure
/// is created (nothing stores it yet), once it is stored, and around work that schedules a block.
/// A closure that captures one object may use it as its context, so every live copy is one more
/// strong reference: `stored` is read after the creating code returned, when no copy is left.
public final class CaptureProbe {
    private var baseline: RefCounts?
    /// The change while a fresh closure is held, not yet stored; once it is stored; while a
    /// scheduled block is pending (`pending(on:around:)`).
    public private(set) var atCreation: RefCounts?, onceStored: RefCounts?, whilePending: RefCounts?

    public init() {}

    /// Takes the baseline: the owner before any closure of interest exists.
    public func begin(_ owner: AnyObject) { baseline = RefCounts.of(owner) }

    /// Measures while `closure` exists and nothing stores it, then hands it back, so a call site
    /// can wrap the closure it passes: `api.configure(action: probe.created(on: screen) { ... })`.
    @discardableResult
    public func created<Closure>(on owner: AnyObject, _ closure: Closure) -> Closure {
        let now = RefCounts.of(owner)
        withExtendedLifetime(closure) {}
        if let baseline { atCreation = now - baseline }
        return closure
    }

    /// Measures after the closure was stored on the owner and the code that made it returned.
    public func stored(on owner: AnyObject) {
        let now = RefCounts.of(owner)  // read outside any closure: a closure naming `owner` would hold it
        if let baseline { onceStored = now - baseline }
    }

    /// Measures what `schedule` (code that hands a block to a queue) leaves holding the owner.
    public func pending(on owner: AnyObject, around schedule: () -> Void) {
        let before = RefCounts.of(owner)
        schedule()
        whilePending = RefCounts.of(owner) - before
    }

    /// Each count at each moment measured, for the record's metrics (`DanceMetric.capture`).
    public var readings: [(moment: String, count: String, value: Int?)] {
        [("created", atCreation), ("stored", onceStored), ("pending", whilePending)].flatMap { moment, delta in
            [("strong", delta?.strong), ("weak", delta?.weak), ("unowned", delta?.unowned)].map {
                (moment, $0, $1)
            }
        }
    }
}
