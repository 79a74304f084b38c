/// How one run of a variant ended.
///
/// The lab's common outcomes are predefined; an experiment defines its own words as `Outcome`
/// constants in its declaration (exp-pool's `starved`, exp-runloop's `busy-loop`) and says what
/// each means in its variants' expectations. Outcomes are compared by name.
public struct Outcome: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }
    public var description: String { rawValue }

    /// Finished everything it set out to do.
    public static let completed: Outcome = "completed"
    /// Made no progress for its stall window (or its budget) and was ended.
    public static let deadlock: Outcome = "deadlock"
    /// Made progress, then stopped making it, and the stall was detected and reported.
    public static let stalled: Outcome = "stalled"
    /// Ended by a signal or trap.
    public static let crashed: Outcome = "crashed"
    /// Something that should have been released was not.
    public static let leaked: Outcome = "leaked"
    /// Exited with an error, or its measurement could not be made.
    public static let failed: Outcome = "failed"
    /// Still making progress when its budget ran out.
    public static let timedOut: Outcome = "timed-out"
    /// Stopped because the whole run was interrupted.
    public static let interrupted: Outcome = "interrupted"

    // The machine's outcomes: the trial did not get what any program needs to run, so what it
    // did says nothing about the program. Each is named with the figure that showed it.

    /// A thread or process could not be created: the user was at `RLIMIT_NPROC` (Linux counts
    /// threads), or `posix_spawn` failed with `EAGAIN`. Linux's libdispatch then retries
    /// `pthread_create` once a second, silently (swift-corelibs-libdispatch, src/queue.c
    /// `_dispatch_root_queue_poke_slow`, and src/init.c `_dispatch_temporary_resource_shortage`),
    /// so a pool that cannot grow looks like a deadlock unless the limit is looked at.
    public static let resourceLimited: Outcome = "resource-limited"
    /// The trial's threads were runnable but the machine gave them little CPU: by their
    /// run-queue time (Linux `/proc/PID/task/TID/schedstat`), taken beside the same-moment
    /// control. Named `cpu-starved`, not `starved`: exp-pool's `starved` is a finding of its own
    /// (probes that waited behind a flooded pool).
    public static let cpuStarved: Outcome = "cpu-starved"
    /// A crash at or near the address-space limit (`RLIMIT_AS`) or the cgroup's memory limit,
    /// or one whose last words were an allocation failure.
    public static let outOfMemory: Outcome = "out-of-memory"

    /// Ended by a signal from outside the harness that no fault of the program's own raises
    /// (SIGKILL, SIGTERM, SIGHUP, SIGINT, SIGQUIT), with no fatal message of its own: an
    /// administrator, a CI runner's time limit, another process. (The OOM killer's SIGKILL is
    /// `out-of-memory`, named by the memory cgroup's counters.)
    public static let killedFromOutside: Outcome = "killed-from-outside"
    /// Stopped from outside the harness while it ran (SIGSTOP, or a SIGTSTP the harness did not
    /// send): its clocks ran on while it could not.
    public static let suspended: Outcome = "suspended"

    /// The outcomes that belong to the machine, not to the program.
    public static let machineOutcomes: Set<Outcome> = [
        .resourceLimited, .cpuStarved, .outOfMemory, .killedFromOutside, .suspended,
    ]

    /// Whether this outcome is the machine's (or the run's: `interrupted`) rather than the
    /// program's. Such an outcome is graded neither way and a finding that needs its variant is
    /// not judged.
    public var judgesNothing: Bool { Outcome.machineOutcomes.contains(self) || self == .interrupted }

    init(_ child: ChildOutcome) {
        self.init(rawValue: child.rawValue)
    }
}

/// How an outcome is judged, after jcstress's `Expect`.
public enum Grade: String, Sendable, Codable, Comparable {
    /// The outcome this variant exists to show.
    case expected
    /// Allowed, worth a look: it says something about the platform or the load.
    case interesting
    /// Must not happen: the variant is wrong, or the platform differs from what the lab knows.
    case forbidden

    private var rank: Int {
        switch self {
        case .expected: 0;
        case .interesting: 1;
        case .forbidden: 2
        }
    }
    public static func < (a: Grade, b: Grade) -> Bool { a.rank < b.rank }
}

/// One declared outcome of a variant and what it means, like jcstress's `@Outcome`.
public struct OutcomeExpectation: Sendable {
    public var outcome: Outcome
    public var grade: Grade
    /// What this outcome tells the reader, in one line.
    public var meaning: String

    public init(_ outcome: Outcome, _ grade: Grade, _ meaning: String) {
        self.outcome = outcome
        self.grade = grade
        self.meaning = meaning
    }

    /// The outcome this variant exists to show.
    public static func expected(_ outcome: Outcome, _ meaning: String) -> OutcomeExpectation {
        .init(outcome, .expected, meaning)
    }
    /// Allowed, worth a look.
    public static func interesting(_ outcome: Outcome, _ meaning: String) -> OutcomeExpectation {
        .init(outcome, .interesting, meaning)
    }
    /// Must not happen.
    public static func forbidden(_ outcome: Outcome, _ meaning: String) -> OutcomeExpectation {
        .init(outcome, .forbidden, meaning)
    }
}

extension Array where Element == OutcomeExpectation {
    /// The grade of `outcome`; outcomes nobody declared are forbidden, as in jcstress.
    public func grade(of outcome: Outcome) -> Grade {
        first { $0.outcome == outcome }?.grade ?? .forbidden
    }

    /// The grade a report shows for `outcome`: none for the machine's outcomes and
    /// `interrupted` (they say nothing about the variant, so they are neither allowed nor
    /// forbidden), else `grade(of:)`.
    func reportedGrade(of outcome: Outcome) -> Grade? {
        outcome.judgesNothing ? nil : grade(of: outcome)
    }

    public func meaning(of outcome: Outcome) -> String? {
        first { $0.outcome == outcome }?.meaning
    }
}
