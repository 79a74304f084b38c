import Foundation

/// What a variant's body gets: its options, a progress counter the harness watches, and its
/// start time.
public final class VariantContext: Sendable {
    public let variant: String
    public let options: ParsedOptions
    /// Advance it as work completes: the parent shows it live, and a child that stops
    /// advancing it for its stall window is a deadlock.
    public let progress: ProgressCounter
    /// Monotonic start of the trial.
    public let startedAt: Seconds
    /// Whether this trial runs in a child process (so it may block, leak or trap on purpose).
    public let inChild: Bool

    public init(variant: String, options: ParsedOptions, inChild: Bool, progress: ProgressCounter = ProgressCounter()) {
        self.variant = variant
        self.options = options
        self.inChild = inChild
        self.progress = progress
        startedAt = MonotonicClock.now()
    }

    /// Measure, then trap: hands `record` (what the trial measured so far, with the outcome it
    /// expects) to the parent before a step that may end the process. If the process then dies
    /// without a result, the parent's record is this one with the outcome and evidence of the
    /// process's end put in front (`crashed`, the runtime's message). A later checkpoint
    /// replaces an earlier one; in-process trials, which must not trap, ignore it.
    public func checkpoint(_ record: VariantRecord) {
        guard inChild, let data = try? JSONEncoder().encode(record) else { return }
        ChildProtocol.sendCheckpoint(String(decoding: data, as: UTF8.self))
    }

    public var quick: Bool { options.quick }

    /// Seconds since the trial started.
    public func elapsed() -> Seconds { MonotonicClock.now() - startedAt }

    /// Seconds since the trial started at monotonic instant `instant`.
    public func since(_ instant: Seconds) -> Seconds { instant - startedAt }
}
